// Package tb is the testbench of the clocked model: it builds the model
// with a PCIe link and a root complex holding host memory, streams a
// scenario's operations into it, collects the results with their cycles,
// and checks them against the golden model (scoreboard). A watchdog names
// the stuck unit when nothing completes for too long.
package tb
