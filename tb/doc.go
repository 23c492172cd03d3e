// Package tb is the testbench of the clocked model: it builds the model
// with a PCIe link and a root complex holding host memory, streams a
// run's operations into it through one of its fronts (direct, wire,
// host, or a capture's replay), collects the results with their cycles,
// and measures the run's statistics (Bench.Stats: the counters and
// latencies less the warm-up). A watchdog names the stuck unit when
// nothing completes for too long.
//
// Its neighbours each own one job: tb/stimulus makes the operations (the
// workloads, trace files, the Feed), tb/score checks the results (the
// scoreboard, the isolation oracle), tb/stats defines, prints and writes
// the statistics (the stats.Report that Bench.Stats fills), tb/wave
// writes the waveform. tb imports tb/stimulus, tb/stats and the wire and
// host packages below it; it must not import tb/score or tb/wave (tb/wave
// imports tb to attach its tracer to a Bench).
package tb
