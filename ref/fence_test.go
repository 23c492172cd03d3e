package ref

import (
	"bytes"
	"fmt"
	"testing"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// TestAlsoLegal (issue 37 part 2): on examples/umr-fence.json, the
// accesses a fence lets overtake a UMR or local invalidate list the
// outcome before it, and only those: seq 1 and 2 (fence none and fence
// after a UMR with fence none) may see the old pages 0x100000 and
// 0x200000; seq 3 has the small fence and closes the window, so seq 4
// (none) sees only the new mapping; seq 6 may still find the invalidated
// key in use; seq 8 comes after an access of another QP, which closes the
// window. The UMR at seq 9 has no mode: the driver's for the device, so
// on a strong device it holds seq 10, on a device with none it does not.
func TestAlsoLegal(t *testing.T) {
	sc, err := scenario.ReadFile("../examples/umr-fence.json")
	if err != nil {
		t.Fatal(err)
	}
	alt := func(r scenario.Result) string {
		if len(r.AlsoLegal) == 0 {
			return "-"
		}
		a := r.AlsoLegal[0]
		if a.Status != prm.OK {
			return a.Status.String()
		}
		return fmt.Sprintf("%#x", a.Segments[0].Addr)
	}
	for _, c := range []struct {
		capability prm.UMRFenceCap
		want       []string // also_legal of each op: the first segment's address or the status
	}{
		{prm.UMRFenceStrong, []string{"-", "0x100100", "0x200100", "-", "-", "-", "0x40", "-", "-", "-", "-"}},
		{prm.UMRFenceNone, []string{"-", "0x100100", "0x200100", "-", "-", "-", "0x40", "-", "-", "-", "0x300100"}},
	} {
		res, err := Run(sc, Config{MaxIndirection: 4, UMRFence: c.capability})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			if got := alt(r); got != c.want[i] {
				t.Errorf("umr_fence %v: seq %d: also_legal %s, want %s", c.capability, i, got, c.want[i])
			}
		}
		// The line round-trips through the writer and the reader.
		var buf bytes.Buffer
		if err := scenario.WriteResults(&buf, res); err != nil {
			t.Fatal(err)
		}
		back, err := scenario.ReadResults(&buf)
		if err != nil {
			t.Fatal(err)
		}
		for i := range res {
			if d := scenario.Diff(&back[i], &res[i]); d != "" || len(back[i].AlsoLegal) != len(res[i].AlsoLegal) {
				t.Errorf("seq %d read back: %s, %d also_legal", i, d, len(back[i].AlsoLegal))
			}
			if k := scenario.LegalIndex(&back[i], &res[i]); k != -1 {
				t.Errorf("seq %d: the line matches also_legal[%d]", i, k)
			}
			for k := range res[i].AlsoLegal {
				a := res[i].AlsoLegal[k]
				a.Seq, a.Op = i, scenario.OpAccess
				if scenario.DiffLegal(&a, &res[i]) != "" || scenario.Diff(&a, &res[i]) == "" {
					t.Errorf("seq %d: also_legal[%d] is not accepted, or equals the line", i, k)
				}
			}
		}
	}
}
