package tb

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/tb/stimulus"
)

// refConfig is the golden model's configuration for the clocked model's
// cfg: the parameters its results depend on (cmd/mkeysim's refConfig).
func refConfig(cfg rtl.Config) ref.Config {
	return ref.Config{MaxIndirection: cfg.KLM.MaxIndirection, ATS: cfg.HCACap.ATS, UMRFence: cfg.HCACap.UMRFenceCap(),
		Pages: ref.PagesConfig{Capped: cfg.Host.PagePolicy == rtl.PolicyCapped, MaxPages: cfg.Host.MaxPages, ICMBase: cfg.MKCCache.ICMBase}}
}

// TestPagesExamples runs the firmware pages' examples (examples/pages)
// through both models under every host policy and ICM page order; the
// capped refusal's example also with host.max_pages 5 (its variant).
func TestPagesExamples(t *testing.T) {
	files, _ := filepath.Glob("../examples/pages/*.json")
	if len(files) < 2 {
		t.Fatalf("%d page examples", len(files))
	}
	for _, f := range files {
		sc, err := scenario.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, policy := range []string{rtl.PolicyEager, rtl.PolicyOnEvent, rtl.PolicyCapped} {
			for _, order := range []string{rtl.OrderContiguous, rtl.OrderScattered} {
				cfg := rtl.DefaultConfig()
				cfg.Host.PagePolicy, cfg.Host.ICMPageOrder = policy, order
				if policy == rtl.PolicyCapped {
					cfg.Host.MaxPages = 6
				}
				runBoth(t, fmt.Sprintf("%s %s %s", f, policy, order), sc, cfg, nil)
			}
		}
	}
	sc, err := scenario.ReadFile("../examples/pages/capped.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg := rtl.DefaultConfig()
	cfg.Host.PagePolicy, cfg.Host.MaxPages = rtl.PolicyCapped, 5
	got := runBoth(t, "capped.json max_pages 5", sc, cfg, nil)
	if got[3].Status != prm.NoResources {
		t.Errorf("seq 3: %s, want NO_RESOURCES", got[3].Status)
	}
}

// TestPagesCounters counts the pages group by hand on a small trace,
// with the host answering Pages Request Events after 2000 cycles
// (on_event), then capped at 5 pages, and with no latency (on_event, 0):
//
//	seq op                              on_event                     capped 5
//	    initialisation                  given 2 (boot, init)         given 2
//	0   create 0 (PA)                   MKC page 0: 0 free: event,   the same (3 given)
//	                                    asked 1, given 1, wait 2000
//	1   create 1 (PA)                   MKC page 0 backed: nothing   nothing
//	2   give 2                          given 2 (2 free)             given 2 (5 given)
//	3   create 64 (MTT, 1 entry)        MKC page 1 and a list page:  the same
//	                                    2 free, no event
//	4   create 128 (PA)                 MKC page 2: event, asked 1,  event, asked 1: 6 > 5:
//	                                    given 1, wait 2000           refused, wait 2000
//	5   give 1                          given 1                      given 1
//	6   take 1                          returned 1                   returned 1
//	7   destroy 1                       MKC page 0 still holds 0:    the same
//	                                    nothing given back
//	8   destroy 64                      MKC page 1 and the list      the same
//	                                    page freed: event, offered
//	                                    2, returned 2, wait 2000
//	9   destroy 0                       MKC page 0 freed: event,     the same
//	                                    offered 1, returned 1, wait 2000
//
// Each event's wait is the host's latency and the round trip R = 103
// cycles (the default link): the command path raises the event in cycle
// c and hands the requester the entry in c, the interrupt message in c+1;
// they reach the device's port in c+1 and c+2; the message reaches the
// CPU (host.irq) in c+101: 75 cycles of the up link, 20 of the root
// complex's pipe and 4 channel stages; the driver reads the entry then
// and, its latency past, pushes the answer, which the command path takes
// in c+103. on_event: given 2+1+2+1+1 = 7, asked 2, returned 1+2+1 = 4,
// offered 3, events 4, refused 0, event_wait_cycles 4 × (2000 + 103) =
// 8412. capped: given 2+1+2+1 = 6, asked 2, returned 4, offered 3, events
// 4, refused 1, event_wait_cycles 8412 (the host answers the refusal
// after its latency too). With no latency, 4 × 103 = 412. Each operation
// with an event (0, 4, 8, 9) completes at least 2103 cycles after the
// operation before it; the destroy without one (7) less.
func TestPagesCounters(t *testing.T) {
	pa := func(i int) string {
		return fmt.Sprintf(`{"op": "create_mkey", "index": %d, "mkc": {"access_mode": "PA", "pd": 5, "start_addr": "0x0", "len": "0x1000", "lr": 1}}`, i)
	}
	doc := `{"qps": [{"qpn": 1, "pd": 5}], "ops": [` + pa(0) + `, ` + pa(1) + `, {"op": "manage_pages", "give": 2},
		{"op": "create_mkey", "index": 64, "mkc": {"access_mode": "MTT", "pd": 5, "start_addr": "0x0", "len": "0x1000", "log_entity_size": 12, "lr": 1}, "mtt": [{"ptag": "0x9000"}]},
		` + pa(128) + `, {"op": "manage_pages", "give": 1}, {"op": "manage_pages", "take": 1},
		{"op": "destroy_mkey", "index": 1}, {"op": "destroy_mkey", "index": 64}, {"op": "destroy_mkey", "index": 0}]}`
	sc, err := scenario.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		policy  string
		max     uint64
		latency int
		want    map[string]uint64
	}{
		{rtl.PolicyOnEvent, 1 << 20, 2000, map[string]uint64{"given": 7, "asked": 2, "returned": 4, "offered": 3, "events": 4, "refused": 0, "event_wait_cycles": 8412}},
		{rtl.PolicyCapped, 5, 2000, map[string]uint64{"given": 6, "asked": 2, "returned": 4, "offered": 3, "events": 4, "refused": 1, "event_wait_cycles": 8412}},
		{rtl.PolicyOnEvent, 1 << 20, 0, map[string]uint64{"given": 7, "asked": 2, "returned": 4, "offered": 3, "events": 4, "refused": 0, "event_wait_cycles": 412}},
	} {
		cfg := rtl.DefaultConfig()
		cfg.Host.PagePolicy, cfg.Host.MaxPages, cfg.Host.PageEventLatencyCycles = c.policy, c.max, c.latency
		var b *Bench
		got := runBoth(t, c.policy, sc, cfg, func(x *Bench) { b = x })
		n := 0
		for _, x := range b.Eng.Counters() {
			if g, ok := strings.CutPrefix(x.Name, "pages."); ok {
				n++
				if x.Value != c.want[g] {
					t.Errorf("%s: pages.%s = %d, want %d", c.policy, g, x.Value, c.want[g])
				}
			}
		}
		if n != len(c.want) {
			t.Errorf("%s: %d pages counters, want %d", c.policy, n, len(c.want))
		}
		for _, i := range []int{0, 4, 7, 8, 9} {
			var before uint64
			if i > 0 {
				before = got[i-1].Cycle
			}
			wait := uint64(c.latency) + 103
			if waits := i != 7; waits != (got[i].Cycle >= before+wait) {
				t.Errorf("%s: seq %d completes at %d, seq %d at %d: want a wait of %d cycles %v", c.policy, i, got[i].Cycle, i-1, before, wait, waits)
			}
		}
		if want := map[string]prm.Status{rtl.PolicyOnEvent: prm.OK, rtl.PolicyCapped: prm.NoResources}[c.policy]; got[4].Status != want {
			t.Errorf("%s: seq 4 %s, want %s", c.policy, got[4].Status, want)
		}
	}
}

// TestPagesThroughIOMMU: with the IOMMU translating the ICM reads, the
// ICM in contiguous pages (the ICM regions mapped whole) and in
// scattered pages (each page the firmware backs mapped on its own by the
// driver, a 4 KiB leaf) gives the golden model's results, random page
// commands included (pages given by list lie outside the ICM regions:
// mapped one by one in both orders); and the scattered ICM costs the
// IOMMU more walks, the same ICM reads needing an IOTLB entry a page
// instead of one a GiB.
func TestPagesThroughIOMMU(t *testing.T) {
	walks := map[string]uint64{}
	for _, order := range []string{rtl.OrderContiguous, rtl.OrderScattered} {
		for _, pagesPerMille := range []int{0, 50} {
			w := stimulus.DefaultWorkload()
			w.Seed, w.Keys, w.Accesses, w.IOMMU, w.PagesPerMille = 5, 300, 3000, true, pagesPerMille
			sc := stimulus.Generate(w)
			cfg := rtl.DefaultConfig()
			cfg.Host.ICMPageOrder, cfg.Host.PagePolicy = order, rtl.PolicyOnEvent
			cfg, _ = ConfigFor(cfg, sc)
			var b *Bench
			runBoth(t, fmt.Sprintf("%s, %d page commands a thousand", order, pagesPerMille), sc, cfg, func(x *Bench) { b = x })
			st := b.Stats(0)
			// No ICM read faults (the page commands' own LOCAL_READs read
			// addresses the scenario does not map: IOMMU_FAULT in both
			// models, which runBoth compares).
			if n, _ := st.Count("iommu.gate.faulted_reads"); n != 0 && pagesPerMille == 0 {
				t.Errorf("%s: %d reads faulted", order, n)
			}
			if pagesPerMille == 0 {
				walks[order], _ = st.Count("iommu.walks")
			}
		}
	}
	if walks[rtl.OrderScattered] <= walks[rtl.OrderContiguous] {
		t.Errorf("iommu.walks: scattered %d, contiguous %d: want more scattered", walks[rtl.OrderScattered], walks[rtl.OrderContiguous])
	}
	t.Logf("iommu.walks: contiguous %d, scattered %d", walks[rtl.OrderContiguous], walks[rtl.OrderScattered])
}

// TestPagesEventQueue: under on_event each Pages Request Event is an
// entry of the pages event queue in host memory, in the PRM's layout:
// 70 creates, each in an MKC page of its own (MKCs 0, 64, 128, ...), ask
// one page each; the queue's 64 entries hold the last 64 events, the 65th
// to the 70th in entries 0 to 5 with the owner bit 1 (the second pass),
// the 7th to the 64th in entries 6 to 63 with 0; the driver read 70
// entries; and the destroy of one key (its MKC page freed) is the 71st
// entry, in entry 6, num_pages -1.
func TestPagesEventQueue(t *testing.T) {
	var ops []string
	for i := 0; i < 70; i++ {
		ops = append(ops, fmt.Sprintf(`{"op": "create_mkey", "index": %d, "mkc": {"access_mode": "PA", "pd": 5, "start_addr": "0x0", "len": "0x1000", "lr": 1}}`, 64*i))
	}
	ops = append(ops, `{"op": "destroy_mkey", "index": 128}`)
	sc, err := scenario.Parse([]byte(`{"qps": [{"qpn": 1, "pd": 5}], "ops": [` + strings.Join(ops, ", ") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	cfg := rtl.DefaultConfig()
	cfg.Host.PagePolicy, cfg.Host.PageEventLatencyCycles = rtl.PolicyOnEvent, 0
	var b *Bench
	runBoth(t, "70 events", sc, cfg, func(x *Bench) { b = x })
	if b.pages.Events != 71 {
		t.Errorf("the driver read %d entries, want 71", b.pages.Events)
	}
	for _, c := range []struct {
		slot  uint32
		num   int32
		owner bool
	}{{0, 1, true}, {5, 1, true}, {6, -1, true}, {7, 1, false}, {63, 1, false}} {
		var raw [prm.EQESize]byte
		b.Host.Mem.Read(rtl.EQEAddr(c.slot), raw[:])
		e, err := prm.ParsePageRequestEQE(raw[:])
		if err != nil || e.NumPages != c.num || e.Owner != c.owner || e.FuncID != 0 {
			t.Errorf("entry %d at %#x: %+v, %v; want num_pages %d, owner %v", c.slot, rtl.EQEAddr(c.slot), e, err, c.num, c.owner)
		}
	}
}

// TestPageEventLatencyCost: the arithmetic of docs/pages.md's sweep of
// host.page_event_latency_cycles on a smaller run: under on_event each
// event at run time waits the 103-cycle round trip and the driver's
// latency, and the whole run waits with it (a command runs alone and
// results leave in order): cycles grow by exactly latency × the events
// at run time (those of the keys at load are answered before the run).
func TestPageEventLatencyCost(t *testing.T) {
	w := stimulus.DefaultWorkload()
	w.Accesses, w.PagesPerMille = 20000, 20
	sc := stimulus.Generate(w)
	cycles, wait, events := map[int]uint64{}, map[int]uint64{}, map[int]uint64{}
	var queued uint64 // the events through the queue: those at run time
	for _, lat := range []int{0, 2000} {
		cfg := rtl.DefaultConfig()
		cfg.Host.PagePolicy, cfg.Host.PageEventLatencyCycles = rtl.PolicyOnEvent, lat
		var b *Bench
		runBoth(t, fmt.Sprintf("latency %d", lat), sc, cfg, func(x *Bench) { b = x })
		st := b.Stats(0)
		cycles[lat] = st.Cycles
		wait[lat], _ = st.Count("pages.event_wait_cycles")
		events[lat], _ = st.Count("pages.events")
		queued = uint64(b.pages.Events) // the entries the driver read
	}
	run := queued
	if run == 0 || events[0] != events[2000] {
		t.Fatalf("events %v, %d through the queue", events, run)
	}
	if wait[0] != 103*run {
		t.Errorf("latency 0: event_wait_cycles %d, want 103 × %d = %d", wait[0], run, 103*run)
	}
	if wait[2000] != 2103*run {
		t.Errorf("latency 2000: event_wait_cycles %d, want 2103 × %d = %d", wait[2000], run, 2103*run)
	}
	if d := cycles[2000] - cycles[0]; d != 2000*run {
		t.Errorf("cycles %d at 2000, %d at 0: %d more, want 2000 × %d = %d", cycles[2000], cycles[0], d, run, 2000*run)
	}
	t.Logf("%d events (%d through the queue): cycles %d -> %d", events[0], run, cycles[0], cycles[2000])
}
