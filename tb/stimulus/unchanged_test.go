package stimulus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
)

// scenarioHash is a digest of everything Generate makes for w: the QPs,
// keys, iommu section and operations, pointers followed (JSON).
func scenarioHash(t *testing.T, w Workload) string {
	t.Helper()
	sc := Generate(w)
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// TestDefaultWorkloadsUnchanged: with the knobs of issue 36 at their
// defaults (translation_mode none, no unmaps, no IOMMU), the workloads
// make byte for byte the scenarios they made before those knobs existed
// (the digests were taken on the commit before them), so that runs,
// sweeps and the same-as check of before stay comparable.
func TestDefaultWorkloadsUnchanged(t *testing.T) {
	small := func(k string) Workload {
		w := DefaultWorkload()
		w.Kind, w.Accesses = k, 20_000
		return w
	}
	cases := []struct {
		name string
		w    Workload
		want string
	}{
		{"default", DefaultWorkload(), "ac92ad1c305bd01e"},
		{"mixed seed 7", func() Workload { w := DefaultWorkload(); w.Seed, w.Accesses = 7, 20_000; return w }(), "edaf4bb6bd1c0f04"},
		{"uniform", small(KindUniform), "b622ad7146df5fc7"},
		{"zipf", small(KindZipf), "525f8f0ff81afdd9"},
		{"sequential", small(KindSequential), "3965ee92fa639e35"},
		{"strided", small(KindStrided), "5f4044e9ac97862c"},
	}
	for _, c := range cases {
		if got := scenarioHash(t, c.w); got != c.want {
			t.Errorf("%s (seed %d): scenario digest %s, want %s", c.name, c.w.Seed, got, c.want)
		}
	}
}
