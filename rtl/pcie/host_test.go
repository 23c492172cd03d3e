package pcie

import (
	"fmt"
	"testing"

	"mkeysim/rtl/sim"
)

// portNames lists the names of e's channels in the order they were made.
func portNames(e *sim.Engine) []string {
	var out []string
	for _, p := range e.Ports() {
		out = append(out, p.Name())
	}
	return out
}

// TestHostWiring: NewHost makes the host side's channels and components in
// the order its doc gives (a waveform's identifiers and the engine's
// order follow from it), wires the CPU into the root complex, and a
// Completer stands in for the root complex in its place.
func TestHostWiring(t *testing.T) {
	e := sim.New()
	tx := sim.NewChan[TLP](e, "dev.tx", 4, 1)
	rx := sim.NewChan[TLP](e, "dev.rx", 4, 1)
	cfg := withDefaults(Config{LinkLatencyCycles: 9, ICMLatencyCycles: 7, DataLatencyCycles: 5})
	mem := NewMemory()
	h := NewHost(e, cfg, mem, tx, rx, HostOptions{Depth: 3})
	if got, want := fmt.Sprint(portNames(e)), "[dev.tx dev.rx pcie.up_out pcie.down_in pcie.up.wire host.pipe host.data_pipe pcie.down.wire host.cpu]"; got != want {
		t.Errorf("channels %s, want %s", got, want)
	}
	if cs := e.Components(); len(cs) != 3 || cs[0] != sim.Component(h.Up) || cs[1] != sim.Component(h.RC) || cs[2] != sim.Component(h.Down) {
		t.Errorf("components %v, want up, root complex, down", cs)
	}
	if h.Mem != mem || h.Up.In != tx || h.Down.Out != rx || h.Up.Out != h.RC.Rx || h.RC.Tx != h.Down.In || h.RC.CPU != h.CPU {
		t.Errorf("miswired: %+v", h)
	}
	if h.Up.Config() != cfg || h.Down.Config() != cfg || h.RC.Config() != cfg {
		t.Errorf("the components were not made of the one config")
	}
	// Each latency's channel holds latency+2 TLPs.
	if h.Up.Wire().Cap() != 11 || h.Down.Wire().Cap() != 11 || h.RC.Pipe().Cap() != 9 || h.RC.DataPipe().Cap() != 7 ||
		h.Up.Out.Cap() != 3 || h.Down.In.Cap() != 3 || h.CPU.Cap() != 3 {
		t.Errorf("depths: wires %d %d, pipes %d %d, host channels %d %d %d", h.Up.Wire().Cap(), h.Down.Wire().Cap(),
			h.RC.Pipe().Cap(), h.RC.DataPipe().Cap(), h.Up.Out.Cap(), h.Down.In.Cap(), h.CPU.Cap())
	}

	e = sim.New()
	tx = sim.NewChan[TLP](e, "dev.tx", 4, 1)
	rx = sim.NewChan[TLP](e, "dev.rx", 4, 1)
	var stand *deafCompleter
	h = NewHost(e, cfg, mem, tx, rx, HostOptions{Depth: 3, Completer: func(_ *sim.Engine, m *Memory, crx, ctx *sim.Chan[TLP]) sim.Component {
		stand = &deafCompleter{mem: m, rx: crx, tx: ctx}
		return stand
	}})
	if h.RC != nil || stand == nil || stand.mem != mem || stand.rx != h.Up.Out || stand.tx != h.Down.In {
		t.Fatalf("the completer was not put in the root complex's place: %+v", h)
	}
	if cs := e.Components(); len(cs) != 3 || cs[1] != sim.Component(stand) {
		t.Errorf("components %v, want the completer between the links", cs)
	}
}

// deafCompleter takes nothing.
type deafCompleter struct {
	mem    *Memory
	rx, tx *sim.Chan[TLP]
}

func (d *deafCompleter) Name() string     { return "deaf" }
func (d *deafCompleter) Eval(uint64) bool { return false }
