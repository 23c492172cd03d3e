package wire

import (
	"fmt"

	"github.com/google/gopacket"
)

// Opcode is the BTH opcode: bits 7:5 name the transport (000 for RC) and
// bits 4:0 the operation, which decides the extension headers that follow.
type Opcode uint8

// The Reliable Connection opcodes, as the InfiniBand specification (volume
// 1, chapter 9) numbers them and Linux's include/rdma/ib_pack.h and
// drivers/infiniband/sw/rxe/rxe_opcode.c give them. 0x15 is reserved.
const (
	OpSendFirst              Opcode = 0x00
	OpSendMiddle             Opcode = 0x01
	OpSendLast               Opcode = 0x02
	OpSendLastImm            Opcode = 0x03
	OpSendOnly               Opcode = 0x04
	OpSendOnlyImm            Opcode = 0x05
	OpRDMAWriteFirst         Opcode = 0x06
	OpRDMAWriteMiddle        Opcode = 0x07
	OpRDMAWriteLast          Opcode = 0x08
	OpRDMAWriteLastImm       Opcode = 0x09
	OpRDMAWriteOnly          Opcode = 0x0A
	OpRDMAWriteOnlyImm       Opcode = 0x0B
	OpRDMAReadRequest        Opcode = 0x0C
	OpRDMAReadResponseFirst  Opcode = 0x0D
	OpRDMAReadResponseMiddle Opcode = 0x0E
	OpRDMAReadResponseLast   Opcode = 0x0F
	OpRDMAReadResponseOnly   Opcode = 0x10
	OpAcknowledge            Opcode = 0x11
	OpAtomicAcknowledge      Opcode = 0x12
	OpCompareSwap            Opcode = 0x13
	OpFetchAdd               Opcode = 0x14
	OpSendLastInvalidate     Opcode = 0x16
	OpSendOnlyInvalidate     Opcode = 0x17
)

// opInfo is what an opcode implies: its name, the extension headers that
// follow the BTH in wire order, and whether a payload may follow them.
type opInfo struct {
	name    string
	hdr     [2]gopacket.LayerType
	n       int
	payload bool
}

// info looks the opcode up; ok is false for an opcode this package does not
// decode past the BTH (reserved, or another transport than RC).
func (op Opcode) info() (in opInfo, ok bool) {
	one := func(name string, h gopacket.LayerType, payload bool) opInfo {
		return opInfo{name: name, hdr: [2]gopacket.LayerType{h}, n: 1, payload: payload}
	}
	two := func(name string, h0, h1 gopacket.LayerType, payload bool) opInfo {
		return opInfo{name: name, hdr: [2]gopacket.LayerType{h0, h1}, n: 2, payload: payload}
	}
	none := func(name string) opInfo { return opInfo{name: name, payload: true} }
	switch op {
	case OpSendFirst:
		return none("RC_SEND_FIRST"), true
	case OpSendMiddle:
		return none("RC_SEND_MIDDLE"), true
	case OpSendLast:
		return none("RC_SEND_LAST"), true
	case OpSendLastImm:
		return one("RC_SEND_LAST_WITH_IMMEDIATE", LayerTypeImmDt, true), true
	case OpSendOnly:
		return none("RC_SEND_ONLY"), true
	case OpSendOnlyImm:
		return one("RC_SEND_ONLY_WITH_IMMEDIATE", LayerTypeImmDt, true), true
	case OpRDMAWriteFirst:
		return one("RC_RDMA_WRITE_FIRST", LayerTypeRETH, true), true
	case OpRDMAWriteMiddle:
		return none("RC_RDMA_WRITE_MIDDLE"), true
	case OpRDMAWriteLast:
		return none("RC_RDMA_WRITE_LAST"), true
	case OpRDMAWriteLastImm:
		return one("RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", LayerTypeImmDt, true), true
	case OpRDMAWriteOnly:
		return one("RC_RDMA_WRITE_ONLY", LayerTypeRETH, true), true
	case OpRDMAWriteOnlyImm:
		return two("RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", LayerTypeRETH, LayerTypeImmDt, true), true
	case OpRDMAReadRequest:
		return one("RC_RDMA_READ_REQUEST", LayerTypeRETH, false), true
	case OpRDMAReadResponseFirst:
		return one("RC_RDMA_READ_RESPONSE_FIRST", LayerTypeAETH, true), true
	case OpRDMAReadResponseMiddle:
		return none("RC_RDMA_READ_RESPONSE_MIDDLE"), true
	case OpRDMAReadResponseLast:
		return one("RC_RDMA_READ_RESPONSE_LAST", LayerTypeAETH, true), true
	case OpRDMAReadResponseOnly:
		return one("RC_RDMA_READ_RESPONSE_ONLY", LayerTypeAETH, true), true
	case OpAcknowledge:
		return one("RC_ACKNOWLEDGE", LayerTypeAETH, false), true
	case OpAtomicAcknowledge:
		return two("RC_ATOMIC_ACKNOWLEDGE", LayerTypeAETH, LayerTypeAtomicAckETH, false), true
	case OpCompareSwap:
		return one("RC_COMPARE_SWAP", LayerTypeAtomicETH, false), true
	case OpFetchAdd:
		return one("RC_FETCH_ADD", LayerTypeAtomicETH, false), true
	case OpSendLastInvalidate:
		return one("RC_SEND_LAST_WITH_INVALIDATE", LayerTypeIETH, true), true
	case OpSendOnlyInvalidate:
		return one("RC_SEND_ONLY_WITH_INVALIDATE", LayerTypeIETH, true), true
	}
	return opInfo{}, false
}

// String gives the opcode's name as Linux spells it without the IB_OPCODE_
// prefix ("RC_RDMA_WRITE_ONLY"), or Opcode(0xNN) for one not decoded here.
func (op Opcode) String() string {
	if in, ok := op.info(); ok {
		return in.name
	}
	return fmt.Sprintf("Opcode(0x%02x)", uint8(op))
}

// Known reports whether this package decodes the opcode's extension headers
// (the RC opcodes above).
func (op Opcode) Known() bool {
	_, ok := op.info()
	return ok
}

// Headers lists the extension headers that follow the BTH for the opcode,
// in wire order (nil for an opcode that is not Known or has none).
func (op Opcode) Headers() []gopacket.LayerType {
	in, ok := op.info()
	if !ok || in.n == 0 {
		return nil
	}
	return in.hdr[:in.n:in.n]
}

// HasPayload reports whether the opcode may carry a payload after its
// headers (false for read requests, acknowledges and atomics).
func (op Opcode) HasPayload() bool {
	in, ok := op.info()
	return ok && in.payload
}

// Opcodes lists the opcodes this package decodes, in numeric order.
func Opcodes() []Opcode {
	var ops []Opcode
	for op := OpSendFirst; op <= OpSendOnlyInvalidate; op++ {
		if op.Known() {
			ops = append(ops, op)
		}
	}
	return ops
}
