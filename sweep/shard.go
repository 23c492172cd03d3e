package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Shard is one slice of a sweep's grid, for running a large sweep as
// several independent processes (on several machines, or as the tasks of
// a job array) whose outputs Merge joins: slice Index of Count (1-based)
// holds the points whose grid index i has i mod Count = Index-1, so that
// the points are dealt round-robin and slices of a grid whose cost grows
// along an axis are balanced. The zero Shard is the whole grid.
type Shard struct {
	Index int // 1..Count
	Count int // 0: the whole grid, not sharded
}

// ParseShard parses I/N: slice I (1-based) of N.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("want I/N, slice I of N (like 2/4)")
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("want I/N with I and N whole numbers (like 2/4)")
	case n < 1:
		return Shard{}, fmt.Errorf("want at least 1 slice, not %d", n)
	case i < 1 || i > n:
		return Shard{}, fmt.Errorf("slice %d of %d: want a slice from 1 to %d", i, n, n)
	}
	return Shard{Index: i, Count: n}, nil
}

// String is I/N, or "" for the whole grid.
func (sh Shard) String() string {
	if sh.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", sh.Index, sh.Count)
}

// Has reports whether the slice holds the point of grid index i.
func (sh Shard) Has(i int) bool { return sh.Count == 0 || i%sh.Count == sh.Index-1 }

// Slice is what sweep.json says of the slice it holds (Result.Slice):
// which slice, how many points the whole grid has, and a digest of the
// scenario run, so that Merge can refuse slices of different sweeps.
type Slice struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// GridPoints is the number of points of the whole grid.
	GridPoints int `json:"grid_points"`
	// ScenarioSHA256 is the SHA-256 of the scenario file, "" without one.
	ScenarioSHA256 string `json:"scenario_sha256,omitempty"`
}

// Shard is the slice's Shard.
func (s Slice) Shard() Shard { return Shard{Index: s.Index, Count: s.Count} }

// slice is the Slice of the sweep's Shard, nil when it is not sharded.
func (s *Sweep) slice() *Slice {
	if s.Shard.Count == 0 {
		return nil
	}
	sl := &Slice{Index: s.Shard.Index, Count: s.Shard.Count, GridPoints: Count(s.Axes)}
	if s.Scenario != nil {
		sum := sha256.Sum256(s.Scenario)
		sl.ScenarioSHA256 = hex.EncodeToString(sum[:])
	}
	return sl
}
