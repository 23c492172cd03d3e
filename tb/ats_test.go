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
	var w *atcWatch
	var b *Bench
	got := runBoth(t, "iommu-unmap with an ATS key", sc, cfg, func(x *Bench) { b, w = x, watchATC(t, x) })
	st := b.Top.ATC.Stats()
	if st.Requests == 0 || st.InvalRequests == 0 || st.Faults == 0 || w.results == 0 || w.invalDone == 0 {
		t.Errorf("the ATS key did not go through the ATC: %+v; %d results, %d invalidate completions", st, w.results, w.invalDone)
	}
	if got[2].Status.String() != "IOMMU_FAULT" {
		t.Errorf("the access after the unmap: %v, want IOMMU_FAULT", got[2].Status)
	}
}

// atcWatch counts, cycle by cycle, the ATC's results (those that hold an
// entry: holders), the entries given back and the Invalidate Completions,
// and fails the test when a completion leaves while an entry is held.
type atcWatch struct {
	results, holders, releases, invalDone int
	doneAt                                []uint64
}

func watchATC(t *testing.T, x *Bench) *atcWatch {
	t.Helper()
	w := &atcWatch{}
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
				w.holders++
			}
			w.results++
		}
		if push, _ := rel.(*sim.Chan[bus.ATSRelease]).Activity(); push {
			w.releases++
		}
		if push, _ := done.(*sim.Chan[bus.ATSInvalDone]).Activity(); push {
			w.invalDone++
			w.doneAt = append(w.doneAt, now)
			if w.holders != w.releases {
				t.Errorf("cycle %d: an Invalidate Completion leaves while %d ATC results hold entries", now, w.holders-w.releases)
			}
		}
	})
	return w
}

// TestATSUnmapInFlight: examples/platform/ats-unmap-in-flight.json with
// overlap_invalidate and 500 cycles between operations, as docs/waveform.md
// shows it: the unmap of the read's range reaches the ATC while the read
// holds translations of it, and its Invalidate Completion waits until
// the last of them is given back (held_invalidations 1); Translation
// Requests in flight for the range are asked again (refetches), their
// pages are no longer mapped, and the read ends with IOMMU_FAULT at its
// first page that had no translation when the unmap came.
func TestATSUnmapInFlight(t *testing.T) {
	sc, err := scenario.ReadFile("../examples/platform/ats-unmap-in-flight.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg := rtl.DefaultConfig()
	cfg.HCACap.ATS, cfg.OverlapInvalidate = true, true
	cfg, _ = ConfigFor(cfg, sc)
	b := loadedBench(t, cfg, sc)
	b.InterArrival(500)
	w := watchATC(t, b)
	res, err := b.Run(sc.Ops, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := b.Top.ATC.Stats()
	if st.HeldInvals != 1 || st.Refetches == 0 || len(w.doneAt) != 1 {
		t.Errorf("stats %+v, %d Invalidate Completions: want one held invalidation and a refetch", st, len(w.doneAt))
	}
	if len(res) != 2 || res[0].Op != scenario.OpIOMMUUnmap || res[1].Status.String() != "IOMMU_FAULT" || res[1].Offset == 0 {
		t.Fatalf("results %+v: want the unmap first, then the read's IOMMU_FAULT past its first pages", res)
	}
	if res[0].Cycle <= w.doneAt[0] {
		t.Errorf("the unmap's result at cycle %d, before the device's Invalidate Completion at %d", res[0].Cycle, w.doneAt[0])
	}
}
