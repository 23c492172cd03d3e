// Package bus declares the payloads that travel on the channels between
// the units of the clocked model. Units import it (and rtl/sim, rtl/pcie,
// prm) but never each other, so a payload type shared by two units lives
// here.
//
// The flow of one request:
//
//	top --Piece--> mptcache --Lookup--> protcheck --Walk--> mttwalk --Outcome--> top (ROB)
//	                  ^                     |  \--Walk--> klmwalk --Outcome--> top
//	                  |                     \--Outcome--> top          |
//	                  +------------ Piece (loop-back, level+1) --------+
package bus

import (
	"mkeysim/prm"
	"mkeysim/rtl/sim"
)

// Piece is a translation job for one key: the bytes [Addr, Addr+Len) of the
// key's space, reached at Level, which are bytes [Offset, Offset+Len) of the
// level-0 request Tag.
type Piece struct {
	Tag uint16
	// Gen counts the reorder buffer's uses of Tag: it tells this request's
	// pieces from those of an earlier one that had the same tag, so that
	// a Cut meant for one never stops the other.
	Gen    uint16
	Level  uint8
	Type   prm.AccessType
	Key    prm.Key
	Addr   uint64
	Len    uint64
	Offset uint64
	QPN    uint32
	PD     uint32
}

// Loop reports whether the piece came through the KLM loop-back (level > 0)
// and so travels on the loop virtual channel.
func (p *Piece) Loop() bool { return p.Level > 0 }

// Lookup is a piece with the MKC the cache found for its index, from the
// MKC cache to the protection checker. Created is false when the index is
// not created. A Lookup with Token set carries no piece: it marks the point
// in the stream after which an invalidation is in force, and the checker
// acknowledges it.
type Lookup struct {
	Piece
	MKC     prm.MKC
	Created bool
	Token   bool
	TokenID uint32
}

// Walk is a piece that passed its checks, with its MKC, sent to a walker.
type Walk struct {
	Piece
	MKC prm.MKC
}

// Outcome is a final result for bytes [Offset, Offset+Len) of request Tag:
// a segment, or a failure at Level. Every byte of a request is covered by
// exactly one outcome, so the reorder buffer knows when a request is whole.
type Outcome struct {
	Tag    uint16
	Offset uint64
	Len    uint64
	Status prm.Status
	Level  uint8
	Seg    prm.Segment
	// A missing page bit (PAGE_ACCESS from the MTT walker) names the key
	// and the address of the page piece; the top turns it into PAGE_FAULT
	// when that key is an ODP registration.
	Missing   bool
	FaultKey  prm.Key
	FaultAddr uint64
	// Cut says the bytes were not translated because a Cut told the walker
	// the request's result was already decided below them: they count as
	// accounted for, and their status means nothing.
	Cut bool
	// An OK segment in DMA space names the key that gave it and how the
	// host translates its addresses (issue 36).
	Key  prm.Key
	Plat Platform
}

// Platform is how a segment's bytes travel to host memory, as the key
// that gave it says: how the host translates its DMA addresses (issue
// 36: the ma_translation_mode, MKC 00h 5:4: 0 none, 1 ATS, 3 CAPI, and
// for CAPI the pasid, MKC 08h 23:0), and whether an RDMA READ response
// reading it keeps at most one read in flight per QP (issue 37:
// small_fence_on_rdma_read_response, MKC 00h bit 16), and whether its
// TLPs carry the Relaxed Ordering attribute (issue 37: ROWrite, the
// MWr TLPs that write it, relaxed_ordering_write, MKC 00h bit 18;
// RORead, the MRd TLPs that read it, relaxed_ordering_read, 38h bit 6).
type Platform struct {
	Mode            uint8
	PASID           uint32
	SmallFence      bool
	ROWrite, RORead bool
}

// PlatformOf is the platform translation and ordering of the key whose
// context is m.
func PlatformOf(m *prm.MKC) Platform {
	return Platform{Mode: m.MATranslationMode, PASID: m.PASID, SmallFence: m.SmallFence,
		ROWrite: m.RelaxedOrderingWrite, RORead: m.RelaxedOrderingRead}
}

// CAPI reports whether the segment's TLPs carry a PASID prefix and are
// translated through that PASID's table.
func (p Platform) CAPI() bool { return p.Mode == prm.TranslationCAPI }

// ATS reports whether the segment's addresses are translated by the
// device's ATC (PCIe ATS) before its TLPs leave.
func (p Platform) ATS() bool { return p.Mode == prm.TranslationATS }

// Cut tells a walker that request Tag (of generation Gen) failed at byte
// Offset (the lowest failure the reorder buffer has seen for it): the
// request's result is that failure or one below it, so no byte at or past
// Offset can change it, and the walker stops the request's pieces there,
// accounting for the rest with a Cut outcome. A cut is only a saving: one
// that arrives late, or never, changes no result.
type Cut struct {
	Tag    uint16
	Gen    uint16
	Offset uint64
}

// Cuts is a walker's table of the cuts in force, by tag: the generation
// each was sent for and its offset.
type Cuts struct{ at []cutEntry }

type cutEntry struct {
	valid bool
	gen   uint16
	off   uint64
}

// Apply records a Cut message: a cut of a newer generation replaces the
// tag's entry; one of the same generation lowers its offset.
func (c *Cuts) Apply(m *Cut) {
	for int(m.Tag) >= len(c.at) {
		c.at = append(c.at, cutEntry{})
	}
	e := &c.at[m.Tag]
	if !e.valid || e.gen != m.Gen || m.Offset < e.off {
		*e = cutEntry{valid: true, gen: m.Gen, off: m.Offset}
	}
}

// Stops reports whether the byte at offset off of piece p's request is
// cut.
func (c *Cuts) Stops(p *Piece, off uint64) bool {
	if int(p.Tag) >= len(c.at) {
		return false
	}
	e := &c.at[p.Tag]
	return e.valid && e.gen == p.Gen && off >= e.off
}

// Inval tells a cache to drop copies: the MKC of Index (MKC cache) or the
// list bytes [Lo, Hi) (MTT and KLM caches); All drops everything.
type Inval struct {
	ID    uint32
	Index uint32
	Lo    uint64
	Hi    uint64
	All   bool
}

// Ack reports that the invalidation ID is in force.
type Ack struct {
	ID uint32
}

// Credit returns to the KLM walker the context it reserved at Level for a
// loop piece that left the loop path for somewhere other than the walker's
// nested queue.
type Credit struct {
	Level uint8
}

// MoveKind is what the data path does with a segment's bytes.
type MoveKind uint8

// The moves: host memory read by the device (an MRd and its
// completions), written by it (MWr), or both for an atomic (an 8-byte
// read, then the write of its result).
const (
	MoveRead MoveKind = iota
	MoveWrite
	MoveAtomic
)

// Move asks the data path to move one DMA segment of translated request
// Tag: Len bytes at Addr. Last marks the request's last segment: the data
// path answers Moved once every byte of the request has moved.
type Move struct {
	Tag  uint16
	Kind MoveKind
	Addr uint64
	Len  uint64
	Last bool
	// Plat is how the host translates Addr; Origin names the segment's
	// first byte for the testbench's monitors (not for units to decide
	// on).
	Plat   Platform
	Origin sim.Origin
	// QPN is the request's QP: a small fence (Plat.SmallFence, set only
	// on an RDMA READ response's reads) is per QP.
	QPN uint32
}

// Moved reports that request Tag's bytes have moved: its reads have all
// completed and its writes have all left.
type Moved struct{ Tag uint16 }
