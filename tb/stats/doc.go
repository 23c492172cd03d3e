// Package stats owns a run's statistics once they are measured: the
// Report (the statistics contract of architecture.md), its figures, each
// with its one definition (Figures: the run's size, speed and time, every
// counter the units declare with the hit rates and link utilizations
// defined from them, the latency percentiles and histogram), how they are
// printed (FormatValue, the summary, the docs/counters.md table) and the
// statistics JSON (MarshalJSON). 'mkeysim run', sweep tables and
// docs/counters.md all take their numbers and names from here.
//
// It does not measure: the bench (mkeysim/tb, Bench.Stats) fills a Report
// from its engine's counters and its model's latencies, less the
// warm-up. Coverage is not its business either: package cover names the
// points and builds the coverage report, and the points derived from
// counters are added by rtl.Top.CoverCounters.
//
// It stands below the bench: it imports only the counters and tallies
// (rtl/sim) and the model's per-PD counts (rtl). It must not import the
// bench (mkeysim/tb), tb/stimulus, tb/score, tb/wave or cover.
package stats
