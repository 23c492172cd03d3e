package tb

import (
	"testing"

	"mkeysim/rtl"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
)

// TestATSUnmap runs examples/iommu-unmap.json with its first key made an
// ATS key, on a device with ATS: the key's data goes through the ATC
// (Translation Requests to the host's translation agent, AT 10b TLPs),
// the unmaps invalidate the ATC through ATS Invalidate Requests, and an
// access after an unmap's result faults (IOMMU_FAULT), every result as
// the golden model's. The ATC's Invalidate Completions leave only when
// no result of the ATC holds an entry (the bench's unmaps come after the
// accesses before them have finished, so none is held here: the ATC's
// TestInvalidationWaitsForHolders covers the wait).
func TestATSUnmap(t *testing.T) {
	sc, err := scenario.ReadFile("../examples/iommu-unmap.json")
	if err != nil {
		t.Fatal(err)
	}
	sc.MKeys[0].MKC.MATranslationMode = 1
	cfg := rtl.DefaultConfig()
	cfg.HCACap.ATS = true
	cfg, _ = ConfigFor(cfg, sc)
	var results, holders, releases, invalDone int
	var b *Bench
	got := runBoth(t, "iommu-unmap with an ATS key", sc, cfg, func(x *Bench) {
		b = x
		var out, rel, done sim.Port
		for _, p := range x.Eng.Ports() {
			switch p.Name() {
			case "atc.out":
				out = p
			case "atc.release":
				rel = p
			case "atc.inval_ok":
				done = p
			}
		}
		if out == nil || rel == nil || done == nil {
			t.Fatal("the top has no ATC channels")
		}
		x.Eng.OnCycle(func(now uint64) {
			if push, _ := out.(*sim.Chan[bus.ATSResult]).Activity(); push {
				if r, _ := out.(*sim.Chan[bus.ATSResult]).Pushed(); r.OK {
					holders++
				}
				results++
			}
			if push, _ := rel.(*sim.Chan[bus.ATSRelease]).Activity(); push {
				releases++
			}
			if push, _ := done.(*sim.Chan[bus.ATSInvalDone]).Activity(); push {
				invalDone++
				if holders != releases {
					t.Errorf("cycle %d: an Invalidate Completion leaves while %d ATC results hold entries", now, holders-releases)
				}
			}
		})
	})
	st := b.Top.ATC.Stats()
	if st.Requests == 0 || st.InvalRequests == 0 || st.Faults == 0 || results == 0 || invalDone == 0 {
		t.Errorf("the ATS key did not go through the ATC: %+v; %d results, %d invalidate completions", st, results, invalDone)
	}
	if got[2].Status.String() != "IOMMU_FAULT" {
		t.Errorf("the access after the unmap: %v, want IOMMU_FAULT", got[2].Status)
	}
}
