package tb

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"
)

// CacheStats is the statistics contract's view of one cache.
type CacheStats struct {
	Hits          uint64 `json:"hits"`
	Misses        uint64 `json:"misses"`
	Fills         uint64 `json:"fills"`
	Evictions     uint64 `json:"evictions"`
	Invalidations uint64 `json:"invalidations"`
}

// HitRate is hits / (hits + misses), 0 with no lookups.
func (c CacheStats) HitRate() float64 {
	if c.Hits+c.Misses == 0 {
		return 0
	}
	return float64(c.Hits) / float64(c.Hits+c.Misses)
}

// PCIeStats counts the link's traffic.
type PCIeStats struct {
	Reads       uint64 `json:"reads"`
	ReadBytes   uint64 `json:"read_bytes"`
	Writes      uint64 `json:"writes"`
	WriteBytes  uint64 `json:"write_bytes"`
	Completions uint64 `json:"completions"`
}

// Latency holds percentiles of access latency in cycles.
type Latency struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// Stats is a run's summary: the statistics contract of architecture.md.
type Stats struct {
	Cycles          uint64          `json:"cycles"`
	WallSeconds     float64         `json:"wall_seconds"`
	CyclesPerSecond float64         `json:"cycles_per_second"`
	Translations    uint64          `json:"translations"`
	MKCCache        CacheStats      `json:"mkc_cache"`
	MTTCache        CacheStats      `json:"mtt_cache"`
	KLMCache        CacheStats      `json:"klm_cache"`
	PCIe            PCIeStats       `json:"pcie"`
	LatencyCycles   Latency         `json:"latency_cycles"`
	Seed            int64           `json:"seed"`
	Config          json.RawMessage `json:"config"`
}

// Stats gathers the bench's statistics after a run of wall duration.
func (b *Bench) Stats(wall time.Duration) Stats {
	s := Stats{Cycles: b.Eng.Now(), WallSeconds: wall.Seconds(), Translations: b.Top.Translations}
	if s.WallSeconds > 0 {
		s.CyclesPerSecond = float64(s.Cycles) / s.WallSeconds
	}
	c := b.Top.Cache.Stats()
	s.MKCCache = CacheStats{Hits: c.Hits, Misses: c.Misses + c.MSHRHits, Fills: c.Fills, Evictions: c.Evictions, Invalidations: c.Invalidations}
	m := b.Top.MTT.Stats().Cache
	s.MTTCache = CacheStats(m)
	k := b.Top.KLM.Stats().Cache
	s.KLMCache = CacheStats(k)
	rc := b.RC.Stats()
	s.PCIe = PCIeStats{Reads: rc.Reads, ReadBytes: rc.ReadBytes, Writes: rc.Writes, WriteBytes: rc.WriteBytes, Completions: rc.Completions}
	lat := make([]float64, len(b.Top.Latencies))
	for i, v := range b.Top.Latencies {
		lat[i] = float64(v)
	}
	if len(lat) > 0 {
		slices.Sort(lat)
		s.LatencyCycles = Latency{
			P50: stat.Quantile(0.50, stat.Empirical, lat, nil),
			P90: stat.Quantile(0.90, stat.Empirical, lat, nil),
			P99: stat.Quantile(0.99, stat.Empirical, lat, nil),
			Max: lat[len(lat)-1],
		}
	}
	return s
}

// WriteSummary prints the statistics for people.
func (s *Stats) WriteSummary(w io.Writer) {
	tpc := 0.0
	if s.Cycles > 0 {
		tpc = float64(s.Translations) / float64(s.Cycles)
	}
	fmt.Fprintf(w, "cycles %d, translations %d (%.3f per cycle), %.2f s wall, %.0f cycles/s\n",
		s.Cycles, s.Translations, tpc, s.WallSeconds, s.CyclesPerSecond)
	fmt.Fprintf(w, "MKC cache: %.1f%% hits (%d hits, %d misses, %d evictions, %d invalidations)\n",
		100*s.MKCCache.HitRate(), s.MKCCache.Hits, s.MKCCache.Misses, s.MKCCache.Evictions, s.MKCCache.Invalidations)
	fmt.Fprintf(w, "MTT cache: %.1f%% hits (%d hits, %d misses, %d evictions, %d invalidations)\n",
		100*s.MTTCache.HitRate(), s.MTTCache.Hits, s.MTTCache.Misses, s.MTTCache.Evictions, s.MTTCache.Invalidations)
	fmt.Fprintf(w, "KLM cache: %.1f%% hits (%d hits, %d misses)\n", 100*s.KLMCache.HitRate(), s.KLMCache.Hits, s.KLMCache.Misses)
	fmt.Fprintf(w, "PCIe: %d reads, %d bytes read, %d completions, %d writes\n", s.PCIe.Reads, s.PCIe.ReadBytes, s.PCIe.Completions, s.PCIe.Writes)
	fmt.Fprintf(w, "latency (cycles): p50 %.0f, p90 %.0f, p99 %.0f, max %.0f\n",
		s.LatencyCycles.P50, s.LatencyCycles.P90, s.LatencyCycles.P99, s.LatencyCycles.Max)
}
