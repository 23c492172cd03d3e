// Package score owns what checks what comes out of the model: the
// scoreboard (Board), which checks each result line of a run against the
// golden model as it leaves the clocked one, and the isolation oracle
// (Isolation), written from the spec and sharing no code with either
// model, which judges result lines against the isolation rules of
// translation.md.
//
// Both read a run's operations (a scenario, or a tb/stimulus Feed) and
// its results; neither runs the model. It must not import the bench
// (mkeysim/tb), the statistics (tb/stats), the waveform (tb/wave) or the
// clocked model (mkeysim/rtl): the bench's users hand results to it.
package score
