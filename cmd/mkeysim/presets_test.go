package main

import (
	"path/filepath"
	"testing"
)

// TestPresets: each workload preset of examples/presets runs as its
// comment says (from the repository root) and breaks the cache it names:
// the MKC hit rate near its entries over the keys, the MTT hit rate near
// its reach over the footprint, measured after a warm-up.
func TestPresets(t *testing.T) {
	t.Chdir("../..")
	for _, tc := range []struct {
		file         string
		mkcLo, mkcHi float64
		mttLo, mttHi float64
	}{
		{"many-small-mrs.toml", 0.10, 0.15, 0.04, 0.09}, // 512 / 4096 keys; 256 lines / 4096 lists
		{"one-gib-random.toml", 0.99, 1, 0, 0.02},       // one key; 8 MiB / 1 GiB
		{"mrs-1024-x-1mib.toml", 0.45, 0.55, 0, 0.02},   // 512 / 1024 keys; 8 MiB / 1 GiB
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir := t.TempDir()
			stats := filepath.Join(dir, "stats.json")
			code, _, stderr := runCLI("run", "--config", filepath.Join("examples", "presets", tc.file), "--workload.accesses", "20000",
				"--workload.warmup-accesses", "8000", "--out", filepath.Join(dir, "r.jsonl"), "--stats", stats, "--no-summary")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var st struct {
				MKC struct {
					HitRate float64 `json:"hit_rate"`
				} `json:"mkc_cache"`
				MTT struct {
					HitRate float64 `json:"hit_rate"`
				} `json:"mtt_cache"`
			}
			readJSON(t, stats, &st)
			if st.MKC.HitRate < tc.mkcLo || st.MKC.HitRate > tc.mkcHi || st.MTT.HitRate < tc.mttLo || st.MTT.HitRate > tc.mttHi {
				t.Errorf("MKC hit rate %.3f (want %.2f..%.2f), MTT %.3f (want %.2f..%.2f)", st.MKC.HitRate, tc.mkcLo, tc.mkcHi, st.MTT.HitRate, tc.mttLo, tc.mttHi)
			}
		})
	}
}
