// Package wave owns the waveform of a bench's run: the Tracer, which
// samples every channel, unit and counter of a tb.Bench each cycle and
// streams the changes to a VCD file (tracer.go); what it traces, one
// scope per unit in data-flow order (signals.go); and the GTKWave save
// file, translate filters and file handling of a traced run (view.go).
// "Wave" is the waveform; "trace" is left to a workload's trace file
// (tb/stimulus).
//
// It stands above the bench: it imports mkeysim/tb to attach to a
// Bench, and nothing in tb, tb/stimulus or tb/score may import it. It
// must not import the scoreboard (tb/score) or the statistics (tb/stats):
// the counters it traces are the units' own (sim.Counted).
package wave
