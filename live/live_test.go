package live

import (
	"errors"
	"testing"

	"mkeysim/prm"
)

// The registry hands out increasing handles, never reused, and refuses
// a handle of the wrong kind.
func TestRegistry(t *testing.T) {
	r := NewRegistry()
	m, _ := NewModel(-1)
	c, _ := NewCache(4, 2, false, 0)
	hm, hc := r.Add(m), r.Add(c)
	if hm != 1 || hc != 2 || r.Len() != 2 {
		t.Fatalf("handles %d %d, %d live", hm, hc, r.Len())
	}
	if _, err := r.Cache(hm); !errors.Is(err, ErrHandle) {
		t.Fatalf("model as cache: %v", err)
	}
	if got, err := r.Model(hm); err != nil || got != m {
		t.Fatalf("model: %v", err)
	}
	if err := r.Delete(hm); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(hm); !errors.Is(err, ErrHandle) {
		t.Fatalf("second delete: %v", err)
	}
	if h := r.Add(m); h != 3 {
		t.Fatalf("handle after a delete: %d, want 3", h)
	}
}

// Load stores a context CREATE_MKEY refuses (a state UMRs reach), and
// the model translates with it.
func TestLoad(t *testing.T) {
	m, _ := NewModel(-1)
	if err := m.AddQP(1, 1, false); err != nil {
		t.Fatal(err)
	}
	ctx := prm.MKC{AccessMode: prm.ModePA, LR: false, LW: true, Free: false, QPN: prm.QPNNone, PD: 1, Len: 0x100}
	img := ctx.Bytes()
	if _, r, err := m.Create(img[:], 5, false, false, ListNone, nil); err != nil || r == nil || r.Status != prm.BadParam {
		t.Fatalf("create with lr clear: %v %v", r, err)
	}
	if err := m.Load(5, img[:], true); err != nil {
		t.Fatal(err)
	}
	got, odp, r := m.Query(5)
	if r != nil || got != img || !odp {
		t.Fatalf("query after load: %v %x odp %v", r, got, odp)
	}
	out, err := m.Access(1, prm.MakeKey(5, 0), 0x10, 4, prm.LocalWrite)
	if err != nil || out.Status != prm.OK || len(out.Segments) != 1 || out.Segments[0].Addr != 0x10 {
		t.Fatalf("access after load: %+v %v", out, err)
	}
	if out, _ := m.Access(1, prm.MakeKey(5, 0), 0x10, 4, prm.LocalRead); out.Status != prm.AccessDenied {
		t.Fatalf("local read without lr: %v", out.Status)
	}
}
