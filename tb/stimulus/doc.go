// Package stimulus owns what goes into the model: the workloads
// (Workload, the constrained-random mix of every mode and command, the
// measurement kinds uniform, zipf, sequential and strided, and trace
// files of accesses), the KLM trees of the deadlock tests, and the Feed
// that hands a run its operations a chunk at a time, made as the model
// takes them and forgotten once their results are in.
//
// It describes operations and nothing else: it must not import the bench
// (mkeysim/tb), the scoreboard (tb/score), the statistics (tb/stats) or
// the waveform (tb/wave), nor the clocked model (mkeysim/rtl) beyond its
// configuration's range checks. Packages above it read its Workload and
// Feed; it knows none of them.
package stimulus
