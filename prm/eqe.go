package prm

import (
	"encoding/binary"
	"fmt"
)

// EQESize is the size of an event queue entry in bytes (struct mlx5_eqe,
// include/linux/mlx5/device.h).
const EQESize = 64

// EventPageRequest is the event type of a Pages Request Event
// (MLX5_EVENT_TYPE_PAGE_REQUEST).
const EventPageRequest = 0x0b

// The places of an EQE's fields (struct mlx5_eqe: rsvd0, type, rsvd1,
// sub_type, rsvd2[7], the event's data (28 bytes), rsvd3, signature,
// owner) and of a page request's (struct mlx5_eqe_page_req:
// ec_function, func_id, num_pages, in the data).
const (
	eqeType       = 0x01
	eqeSubType    = 0x03
	eqeData       = 0x20
	eqeOwner      = 0x3f
	pageReqFuncID = eqeData + 2
	pageReqPages  = eqeData + 4
)

// PageRequestEQE is a Pages Request Event as the HCA writes it to its
// event queue: the function it concerns and how many pages it asks
// (num_pages > 0) or gives back (num_pages < 0). Owner is the entry's
// owner bit: the HCA writes the parity of its pass over the queue (the
// producer index divided by the queue's entries), so that the driver,
// which set every entry's bit to 1 before the first pass, tells a new
// entry from an old one.
type PageRequestEQE struct {
	ECFunction uint16
	FuncID     uint16
	NumPages   int32
	Owner      bool
}

// Bytes packs the event in the PRM's layout, big-endian, the reserved
// bytes zero.
func (e PageRequestEQE) Bytes() [EQESize]byte {
	var b [EQESize]byte
	b[eqeType] = EventPageRequest
	binary.BigEndian.PutUint16(b[eqeData:], e.ECFunction)
	binary.BigEndian.PutUint16(b[pageReqFuncID:], e.FuncID)
	binary.BigEndian.PutUint32(b[pageReqPages:], uint32(e.NumPages))
	if e.Owner {
		b[eqeOwner] = 1
	}
	return b
}

// EQEOwner is the owner bit of the EQE in b (its last byte's bit 0).
func EQEOwner(b []byte) bool { return b[eqeOwner]&1 != 0 }

// ParsePageRequestEQE reads a Pages Request Event from b; an entry of
// another size or event type is an error naming it.
func ParsePageRequestEQE(b []byte) (PageRequestEQE, error) {
	if len(b) != EQESize {
		return PageRequestEQE{}, fmt.Errorf("EQE of %d bytes, want %d", len(b), EQESize)
	}
	if t := b[eqeType]; t != EventPageRequest {
		return PageRequestEQE{}, fmt.Errorf("EQE 01h: event type %#02x, want a page request (%#02x)", t, EventPageRequest)
	}
	return PageRequestEQE{
		ECFunction: binary.BigEndian.Uint16(b[eqeData:]),
		FuncID:     binary.BigEndian.Uint16(b[pageReqFuncID:]),
		NumPages:   int32(binary.BigEndian.Uint32(b[pageReqPages:])),
		Owner:      EQEOwner(b),
	}, nil
}
