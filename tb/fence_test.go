package tb

import (
	"fmt"
	"testing"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/rtl"
	"mkeysim/scenario"
)

// fenceScenario: QP 1's MTT key 0x102a maps its first page at 0x100000;
// a UMR (no fence of its own: the driver's for the device) moves it to
// 0x300000, and n LOCAL_READs of that page follow on QP 1 with fence
// mode mode, then one with the initiator small fence.
func fenceScenario(t *testing.T, mode string, n int) *scenario.Scenario {
	t.Helper()
	ops := `{"op": "umr", "qpn": 1, "key": "0x102a", "mtt": [{"ptag": "0x300000"}, {"ptag": "0x400000"}]}`
	for i := 0; i < n; i++ {
		ops += fmt.Sprintf(`, {"op": "access", "qpn": 1, "key": "0x102a", "addr": "%#x", "len": 64, "type": "LOCAL_READ", "fence": %q}`, 0x10000+64*i, mode)
	}
	ops += `, {"op": "access", "qpn": 1, "key": "0x102a", "addr": "0x10f00", "len": 64, "type": "LOCAL_READ", "fence": "initiator_small"}`
	sc, err := scenario.Parse([]byte(`{"qps": [{"qpn": 1, "pd": 5}],
	  "mkeys": [{"index": 16, "variant": "0x2a",
	    "mkc": {"access_mode": "MTT", "pd": 5, "start_addr": "0x10000", "len": 8192, "log_entity_size": 12,
	            "lr": 1, "lw": 1, "umr_en": 1},
	    "mtt": [{"ptag": "0x100000"}, {"ptag": "0x200000"}]}],
	  "ops": [` + ops + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// runFence runs sc through front (direct or host) on a device whose
// umr_fence is capability, with the firmware's latency cmdLatency, and
// returns the results in seq order and sq.overtaken. Every result must be
// one the golden model allows.
func runFence(t *testing.T, sc *scenario.Scenario, capability string, cmdLatency int, front Front) ([]scenario.Result, uint64) {
	t.Helper()
	cfg := rtl.DefaultConfig()
	cfg.HCACap.UMRFence, cfg.CmdLatency = capability, cmdLatency
	b := loadedBench(t, cfg, sc)
	got := make([]scenario.Result, len(sc.Ops))
	opt := RunOptions{OnResult: func(r *scenario.Result) error { got[r.Seq] = r.Clone(); return nil }}
	var err error
	if front == FrontHost {
		_, err = b.StreamHost(sc.Ops, opt)
	} else {
		err = b.Stream(sc.Ops, opt)
	}
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.Run(sc, ref.Config{MaxIndirection: 4, UMRFence: cfg.HCACap.UMRFenceCap()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if d := scenario.DiffLegal(&got[i], &want[i]); d != "" {
			t.Errorf("%v front: %s", front, d)
		}
	}
	var overtaken uint64
	for _, c := range b.Eng.Counters() {
		if c.Name == "sq.overtaken" {
			overtaken = c.Value
		}
	}
	return got, overtaken
}

// TestUMRFenceOvertaking (issue 37 part 2): on a device whose umr_fence is
// none the driver posts the UMR with no fence, and a WQE posted after it
// with no fence starts before it completes: it translates with the old
// mapping (0x100000), which the golden model lists as also legal, and
// sq.overtaken counts it; the same WQE with the initiator small fence
// waits and sees the new one (0x300000). Through the direct front the
// operations enter one a cycle: the UMR enters the command path at cycle
// c, finds the pipeline empty and starts the firmware's 20 cycles; the two
// reads enter at c+1 and c+2, inside them (2 overtaken); the fenced one
// waits. Through the host front the WQEs come with their doorbells' reads,
// hundreds of cycles apart, so the firmware takes 2,000 cycles there.
func TestUMRFenceOvertaking(t *testing.T) {
	cases := []struct {
		front     Front
		latency   int
		mode      string
		wantAddr  uint64
		overtaken uint64
	}{
		{FrontDirect, 20, "none", 0x100000, 2},
		{FrontDirect, 20, "fence", 0x100000, 2}, // the plain fence waits for READs and atomics, not UMRs
		{FrontDirect, 20, "initiator_small", 0x300000, 0},
		{FrontHost, 2000, "none", 0x100000, 2},
		{FrontHost, 2000, "small_and_fence", 0x300000, 0},
	}
	for _, c := range cases {
		sc := fenceScenario(t, c.mode, 2)
		got, overtaken := runFence(t, sc, "none", c.latency, c.front)
		for i := 1; i <= 2; i++ {
			if s := got[i].Segments; got[i].Status != prm.OK || len(s) != 1 || s[0].Addr != c.wantAddr+uint64(64*(i-1)) {
				t.Errorf("%v, fence %s: access %d: %v %v, want the page at %#x", c.front, c.mode, i, got[i].Status, s, c.wantAddr)
			}
		}
		if s := got[3].Segments; len(s) != 1 || s[0].Addr != 0x300f00 {
			t.Errorf("%v, fence %s: the fenced access: %v, want the new page", c.front, c.mode, s)
		}
		if overtaken != c.overtaken {
			t.Errorf("%v, fence %s: sq.overtaken %d, want %d", c.front, c.mode, overtaken, c.overtaken)
		}
	}
}

// TestUMRFenceCapabilities: the driver's modes per capability. On a strong
// device the UMR carries STRONG_ORDERING and holds every later WQE; on a
// small one it carries INITIATOR_SMALL, which does not hold later WQEs, so
// a WQE with no fence passes it as on a device with none.
func TestUMRFenceCapabilities(t *testing.T) {
	for _, c := range []struct {
		capability string
		overtaken  uint64
	}{{"strong", 0}, {"small", 2}, {"none", 2}} {
		sc := fenceScenario(t, "none", 2)
		_, overtaken := runFence(t, sc, c.capability, 20, FrontDirect)
		if overtaken != c.overtaken {
			t.Errorf("umr_fence %s: sq.overtaken %d, want %d", c.capability, overtaken, c.overtaken)
		}
	}
}
