package rtl

import (
	"testing"

	"mkeysim/prm"
	"mkeysim/rtl/pcie"
	"mkeysim/scenario"
)

// plainICM is an ICM that does not list its pages.
type plainICM struct{ m *pcie.Memory }

func (p plainICM) Read(a uint64, b []byte)  { p.m.Read(a, b) }
func (p plainICM) Write(a uint64, b []byte) { p.m.Write(a, b) }

// TestQuerySnapshotOfPlainICM: over an ICM that cannot list its present
// pages, a query scans the range for pages that are not zero, and gives
// the same list as over pcie.Memory.
func TestQuerySnapshotOfPlainICM(t *testing.T) {
	mem := pcie.NewMemory()
	k := scenario.MKey{Index: 1, HasIndex: true, PgAccess: true,
		MKC: prm.MKC{AccessMode: prm.ModeMTT, LogEntitySize: 12, PD: 5, LR: true, TranslationsOctwordSize: 1024},
		MTT: []prm.MTTEntry{{PTag: 0x5000, RdEn: true}, {PTag: 0x6000, WrEn: true}}}
	fast := newFirmware(mem, 0, DefaultHostConfig())
	if _, _, r := fast.create(&k); r != nil {
		t.Fatal(r.reason)
	}
	// A page inside the list written with zeros reads as zero entries.
	mem.Write(handleBase+8192, make([]byte, 64))
	mem.Write(handleBase+4096+8, prm.MTTEntry{PTag: 0x7000, RdEn: true, WrEn: true}.Append(nil))
	slow := newFirmware(plainICM{mem}, 0, DefaultHostConfig())
	slow.created = fast.created
	var a, b scenario.Result
	if r := fast.query(1, nil, &a); r != nil {
		t.Fatal(r.reason)
	}
	if r := slow.query(1, nil, &b); r != nil {
		t.Fatal(r.reason)
	}
	if a.List.Len() != 2048 || b.List.Len() != 2048 {
		t.Fatalf("lengths %d and %d, want 2048", a.List.Len(), b.List.Len())
	}
	if d := scenario.DiffList(b.List, a.List); d != "" {
		t.Error(d)
	}
	if e := b.List.MTT(513); e != (prm.MTTEntry{PTag: 0x7000, RdEn: true, WrEn: true}) {
		t.Errorf("mtt[513] = %+v", e)
	}
}
