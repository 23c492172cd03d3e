package tb

import "mkeysim/rtl/pcie"

// TapTLPs calls f with every TLP that crosses the device's PCIe port, as
// a bus monitor on the port would see it: an upstream TLP (the device's
// reads, writes and any completion it sends) in the cycle the device
// transmits it, a downstream one (the root complex's completions and
// writes) in the cycle it arrives at the device. The TLP is valid only
// during the call. Call it before the run; it changes no result or cycle
// (it watches the port's channels from the engine's hook, as the tracer
// does).
func (b *Bench) TapTLPs(f func(cycle uint64, upstream bool, t *pcie.TLP)) {
	tx, rx := b.Top.Tx, b.Top.Rx
	b.Eng.OnCycle(func(now uint64) {
		if t, ok := tx.Pushed(); ok {
			f(now, true, t)
		}
		if t, ok := rx.Pushed(); ok {
			f(now, false, t)
		}
	})
}
