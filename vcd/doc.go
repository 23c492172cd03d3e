// Package vcd writes and reads the waveforms of an mkeysim run.
//
// It has four parts:
//
//   - writer.go, scope.go, var.go and clock.go: a streaming IEEE
//     1364-2005 §18 Value Change Dump writer shaped like Verilator's
//     (verilated_vcd_c.cpp): one $scope module per hierarchy level,
//     identifier codes assigned once in base 94 from '!', a full first
//     dump under #0 in $dumpvars, then only the values that changed, a
//     time line only when something changed, and a buffered output
//     (buffer.go, with the text formatted by format.go). The API counts
//     time in clock cycles; the writer picks a $timescale so that one
//     cycle is one clock period.
//   - reader.go: a strict reader that rejects what GTKWave and vcd2fst
//     silently accept (undeclared identifiers, time going backwards,
//     values wider than their variable, unbalanced scopes, ...), used by
//     tests to check what the writer produced.
//   - gtkw.go: GTKWave save files (.gtkw) that open the signals grouped
//     and formatted.
//   - filter.go: GTKWave translate-filter files that show a value by name
//     (access modes, statuses, FSM states).
//
// # Cost when tracing is off
//
// Every method accepts a nil receiver: a nil *Writer returns nil scopes, a
// nil *Scope returns nil variables, and (*Var)(nil).Set does nothing. A
// unit can therefore hold its *Var fields unconditionally and call Set on
// every cycle; with tracing off each call is one nil test. Variables that
// the Options.Scope filter leaves out are nil in the same way.
//
// # Usage
//
//	w := vcd.NewWriter(f, vcd.Options{TimescalePS: 4000, Version: "mkeysim"})
//	top := w.Root("top")
//	valid := top.Scope("mptcache").Var("req_valid", 1)
//	key := top.Scope("mptcache").Var("req_key", 32)
//	if err := w.Begin(); err != nil { ... }
//	for cycle := uint64(1); cycle <= n; cycle++ {
//		w.At(cycle)
//		valid.SetBool(v)
//		key.Set(k)
//	}
//	err := w.Close()
//
// The package imports nothing of mkeysim and keeps no global state but
// a constant table (format.go).
package vcd
