package tb

import (
	"os"
	"path/filepath"
	"testing"

	"mkeysim/ref"
	"mkeysim/rtl"
	"mkeysim/scenario"
)

// FuzzDifferential mutates scenarios and runs each one that parses through
// both models: they must agree line for line (or both refuse it).
func FuzzDifferential(f *testing.F) {
	files, _ := filepath.Glob("../examples/*.json")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenario.Parse(data)
		if err != nil || len(sc.Ops) > 200 || sc.IOMMU != nil {
			return
		}
		for _, op := range sc.Ops {
			if op.Kind == scenario.OpAccess && op.Access.Len > 1<<20 {
				return // long walks take many cycles; not what this fuzzer is for
			}
		}
		want, werr := ref.Run(sc, ref.DefaultConfig())
		b, err := New(rtl.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		if berr := b.Load(sc); (berr == nil) != (werr == nil) {
			t.Fatalf("golden model load error %v, clocked model %v", werr, berr)
		} else if berr != nil {
			return
		}
		b.Watchdog = 200_000
		got, err := b.Run(sc.Ops, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if d := scenario.DiffLegal(&got[i], &want[i]); d != "" {
				t.Fatal(d)
			}
		}
	})
}
