package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClassify: the functions of each layer as cachegrind names them,
// the waveform's samplers wherever they live, the first claim winning.
func TestClassify(t *testing.T) {
	cases := []struct{ fn, layer string }{
		{"mkeysim/rtl/sim.(*Engine).stepDue", "engine"},
		{"mkeysim/rtl/sim.(*wheel).take", "engine"},
		{"mkeysim/rtl/sim.(*link).commit", "channels"},
		{"mkeysim/rtl/sim.(*Chan[go.shape.struct { Tag uint16 }]).Push", "channels"},
		{"mkeysim/rtl/sim.(*Chan[go.shape.struct { Tag uint16 }]).HeadValues", "waveform"},
		{"mkeysim/rtl/sim.(*link).State", "waveform"},
		{"mkeysim/rtl/sim.(*Mask).Round", "units"},
		{"mkeysim/rtl/mptcache.(*Unit).lookup", "units"},
		{"mkeysim/rtl/klmwalk.(*Unit).Describe.func1", "waveform"},
		{"mkeysim/rtl/walk.(*Contexts).Take", "units"},
		{"mkeysim/rtl/walk.(*Contexts).Describe.func1", "waveform"},
		{"mkeysim/rtl/bus.(*Lookup).FieldValues", "waveform"},
		{"mkeysim/prm.ParseMKC", "units"},
		{"mkeysim/rtl.(*Top).retire", "top"},
		{"mkeysim/rtl/pcie.(*RootComplex).Eval", "PCIe"},
		{"mkeysim/tb/stimulus.(*gen).access", "workload"},
		{"math/rand.(*Rand).Int31n", "workload"},
		{"internal/strconv.formatBits", "result lines"},
		{"mkeysim/scenario.(*Result).encode", "result lines"},
		{"mkeysim/ref.(*Model).Translate", "golden"},
		{"mkeysim/tb/wave.(*Tracer).hook", "waveform"},
		{"mkeysim/vcd.putWordLine", "waveform"},
		{"mkeysim/tb.(*source).Eval", "testbench"},
		{"runtime.memmove", "Go runtime"},
		{"internal/runtime/maps.ctrlGroup.matchH2", "Go runtime"},
		{"aeshashbody", other},
	}
	for _, c := range cases {
		if got := classify(c.fn); !strings.HasPrefix(got, c.layer) {
			t.Errorf("%s: layer %q, want %q...", c.fn, got, c.layer)
		}
	}
}

// cgFile writes a cachegrind output file of counts by function.
func cgFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "cg.out")
	head := "desc: I1 cache: 32768 B\ncmd: mkeysim run\nevents: Ir\n"
	if err := os.WriteFile(p, []byte(head+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMarginal: the difference of two runs per access, by layer and in
// total, and the table that shows it.
func TestMarginal(t *testing.T) {
	short := cgFile(t, "fl=engine.go\nfn=mkeysim/rtl/sim.(*Engine).stepDue\n10 1000\n11 500\n"+
		"fl=unit.go\nfn=mkeysim/rtl/mptcache.(*Unit).lookup\n5 2000\nfn=runtime.main\n0 7000\nsummary: 10500\n")
	long := cgFile(t, "fl=engine.go\nfn=mkeysim/rtl/sim.(*Engine).stepDue\n10 2000\n11 1000\n"+
		"fl=unit.go\nfn=mkeysim/rtl/mptcache.(*Unit).lookup\n5 6000\nfn=runtime.main\n0 7000\n"+
		"fn=mkeysim/rtl/pcie.(*Link).Eval\n3 1000\nsummary: 17000\n")
	c, err := marginal("w", short, long, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{layerOf("engine"): 15, layerOf("units"): 40, layerOf("PCIe"): 10, layerOf("Go runtime"): 0}
	for k, v := range want {
		if c.by[k] != v {
			t.Errorf("%s: %v an access, want %v", k, c.by[k], v)
		}
	}
	if c.total != 65 {
		t.Errorf("total %v an access, want 65", c.total)
	}
	var b strings.Builder
	table(&b, []column{c})
	for _, line := range []string{
		"| layer | w |",
		"| engine (schedule, wakes, evaluation and commit loops) | 15 (23 %) |",
		"| PCIe model (links, root complex, requester, host memory) | 10 (15 %) |",
		"| total | 65 |",
	} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("no line %q in\n%s", line, b.String())
		}
	}
	if strings.Contains(b.String(), "Go runtime") || strings.Contains(b.String(), "| other") {
		t.Errorf("a layer that costs nothing has a row:\n%s", b.String())
	}
}

// layerOf returns the full name of the layer whose name starts with p.
func layerOf(p string) string {
	for _, l := range layers {
		if strings.HasPrefix(l.name, p) {
			return l.name
		}
	}
	return p
}

// TestCountsErrors: a file that is not cachegrind's, a count of several
// events, and counts that do not add up to the summary are errors.
func TestCountsErrors(t *testing.T) {
	for name, body := range map[string]string{
		"no summary":   "fn=f\n1 10\n",
		"two events":   "fn=f\n1 10 20\nsummary: 10\n",
		"bad count":    "fn=f\n1 ten\nsummary: 10\n",
		"wrong sum":    "fn=f\n1 10\nsummary: 11\n",
		"bad summary":  "fn=f\n1 10\nsummary: many\n",
		"empty":        "",
		"not a number": "fn=f\n1 99999999999999999999\nsummary: 10\n",
	} {
		if _, _, err := counts(strings.NewReader(body)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, total, err := counts(strings.NewReader("fn=f\n1 10\nfn=g\n2 5\nsummary: 15\n")); err != nil || total != 15 {
		t.Errorf("a good file: total %d, %v", total, err)
	}
}

func TestGroup(t *testing.T) {
	for x, want := range map[float64]string{0: "0", 7.4: "7", 999.6: "1,000", 33593.2: "33,593", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := group(x); got != want {
			t.Errorf("group(%v) = %q, want %q", x, got, want)
		}
	}
}
