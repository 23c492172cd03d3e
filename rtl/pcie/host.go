package pcie

import "mkeysim/rtl/sim"

// Host is the host side of the link, opposite the device's Requester: the
// two link directions, the root complex between them and the host memory
// it serves, as NewHost wires them:
//
//	device Tx --> Up --> up_out --> RootComplex --> down_in --> Down --> device Rx
//	                                  ^     |
//	                        CPU ------+   Memory
type Host struct {
	// Mem is the host memory (ICM) the root complex reads and writes.
	Mem *Memory
	// Up carries the device's TLPs to the host, Down the host's to the
	// device.
	Up, Down *Link
	// RC is the root complex; nil when HostOptions.Completer stood in for
	// it.
	RC *RootComplex
	// CPU carries the MWr TLPs the host's CPU writes to the device
	// (doorbells): the root complex sends them down between two reads'
	// completions.
	CPU *sim.Chan[TLP]
}

// HostOptions are how NewHost builds the host side beyond the Config.
type HostOptions struct {
	// Depth is the depth of the host's channels: the links' outputs into
	// the root complex and out of it, and the CPU's (the run's fifo_depth;
	// below 1, 1).
	Depth int
	// Completer, if not nil, stands in for the root complex between the
	// two link directions (tests break the host with it): it takes the
	// requests on rx, answers on tx and is made over mem, and NewHost adds
	// what it returns to the engine in the root complex's place. Host.RC
	// is then nil, and nothing takes the CPU's TLPs.
	Completer func(e *sim.Engine, mem *Memory, rx, tx *sim.Chan[TLP]) sim.Component
	// Translate, if not nil, puts a stage between the up link and the
	// root complex (the IOMMU's, issue 36): given the channel of the
	// device's TLPs out of the up link, it returns the channel the root
	// complex takes them from and the stage's components, which NewHost
	// adds to the engine after the up link.
	Translate func(e *sim.Engine, rx *sim.Chan[TLP]) (*sim.Chan[TLP], []sim.Component)
	// Side, if not nil, is called after Translate for the channel of the
	// TLPs the host's translation agent sends the device (ATS), which the
	// root complex sends down after the CPU's (RootComplex.SetSide).
	Side func() *sim.Chan[TLP]
	// IRQ, if not nil, is the channel of the interrupt messages the root
	// complex hands the CPU (RootComplex.SetIRQ).
	IRQ *sim.Chan[TLP]
}

// NewHost builds the host side over mem opposite a device that sends on
// tx and receives on rx, from the one cfg the device's Requester is made
// with too (so both ends agree on the RCB and Max_Payload_Size), and adds
// its components to e: the up link (named pcie.up), the root complex
// (host), the down link (pcie.down). Its channels are registered with e
// in that order, then the CPU's (host.cpu). It panics on a config that
// Validate refuses. mem is the caller's, for the device's firmware and the
// host's CPU write it too.
func NewHost(e *sim.Engine, cfg Config, mem *Memory, tx, rx *sim.Chan[TLP], opt HostOptions) *Host {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	h := &Host{Mem: mem}
	upOut := sim.NewChan[TLP](e, "pcie.up_out", opt.Depth, 1)
	downIn := sim.NewChan[TLP](e, "pcie.down_in", opt.Depth, 1)
	h.Up = NewLink(e, "pcie.up", cfg, tx, upOut)
	rcIn := upOut
	var stage []sim.Component
	if opt.Translate != nil {
		rcIn, stage = opt.Translate(e, upOut)
	}
	var rc sim.Component
	if opt.Completer != nil {
		rc = opt.Completer(e, mem, rcIn, downIn)
	} else {
		h.RC = NewRootComplex(e, "host", cfg, mem, rcIn, downIn)
		rc = h.RC
	}
	h.Down = NewLink(e, "pcie.down", cfg, downIn, rx)
	h.CPU = sim.NewChan[TLP](e, "host.cpu", opt.Depth, 1)
	if h.RC != nil {
		h.RC.SetCPU(h.CPU)
		if opt.Side != nil {
			h.RC.SetSide(opt.Side())
		}
		if opt.IRQ != nil {
			h.RC.SetIRQ(opt.IRQ)
		}
	}
	e.Add(h.Up)
	e.Add(stage...)
	e.Add(rc, h.Down)
	return h
}
