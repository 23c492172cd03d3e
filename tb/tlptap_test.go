package tb

import (
	"slices"
	"strings"
	"testing"

	"mkeysim/rtl"
	"mkeysim/rtl/pcie"
	"mkeysim/scenario"
	"mkeysim/tb/stimulus"
)

// tappedRun runs sc on a new bench of cfg after setup (nil: none) and
// returns the bench and its result lines with their cycles.
func tappedRun(t *testing.T, cfg rtl.Config, sc *scenario.Scenario, setup func(*Bench)) (*Bench, []string) {
	t.Helper()
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Load(sc); err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(b)
	}
	res, err := b.Run(sc.Ops, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := make([]string, len(res))
	for i := range res {
		var buf strings.Builder
		if err := (&scenario.LineWriter{W: &buf}).Write(&res[i]); err != nil {
			t.Fatal(err)
		}
		lines[i] = buf.String()
	}
	return b, lines
}

// TestTapTLPs: the tap sees, in each direction, exactly the TLPs the
// link counted, type by type, in the order of their cycles, and a run
// with the tap gives the results and completion cycles of one without.
func TestTapTLPs(t *testing.T) {
	for _, data := range []bool{false, true} {
		cfg := rtl.DefaultConfig()
		cfg.Data.Enabled = data
		w := stimulus.DefaultWorkload()
		w.Accesses, w.Seed = 3000, 7
		ops := stimulus.Generate(w)
		_, plain := tappedRun(t, cfg, ops, nil)

		var seen [2][pcie.NumTypes]uint64
		var last [2]uint64
		bench, tapped := tappedRun(t, cfg, ops, func(b *Bench) {
			b.TapTLPs(func(cycle uint64, up bool, tl *pcie.TLP) {
				d := 0
				if !up {
					d = 1
				}
				if cycle < last[d] {
					t.Fatalf("data %v: TLP at cycle %d after one at %d", data, cycle, last[d])
				}
				last[d] = cycle
				seen[d][tl.Type]++
			})
		})
		if !slices.Equal(plain, tapped) {
			for i := range plain {
				if plain[i] != tapped[i] {
					t.Fatalf("data %v: result %d differs with the tap:\n%s\n%s", data, i, plain[i], tapped[i])
				}
			}
			t.Fatalf("data %v: %d results without the tap, %d with", data, len(plain), len(tapped))
		}
		for d, l := range []*pcie.Link{bench.Up, bench.Down} {
			st := l.Stats()
			for ty := range pcie.NumTypes {
				if got, want := seen[d][ty], st.PerType[ty].TLPs; got != want {
					t.Errorf("data %v, %s: tap saw %d %v TLPs, the link counted %d", data, l.Name(), got, pcie.Type(ty), want)
				}
			}
		}
		if seen[0][pcie.MRd] == 0 || seen[1][pcie.CplD] == 0 || (data && seen[0][pcie.MWr] == 0) {
			t.Errorf("data %v: the workload moved too little to test: %v", data, seen)
		}
	}
}
