// Package live is the golden model (ref) for live co-simulation: model
// and MKC-cache instances named by handles, whose calls take and give the
// PRM byte formats a Verilog testbench holds (64-byte MKC images, MTT and
// KLM entry lists) and answer what a DUT must answer, exactly as the
// golden vectors would. cosim/libmkeysim exports it as a C library
// (cosim/mkeysim.h); the DPI-C package and the VPI module wrap that.
//
// A call's own failure (a bad argument, an unknown handle) is a Go error
// and changes nothing; a command the model refuses is a *ref.Refusal, as
// in ref.
package live
