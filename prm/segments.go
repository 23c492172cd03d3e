package prm

import "encoding/binary"

// The segments that follow a send WQE's control segment: remote address,
// atomic arguments and data (scatter/gather) pointers.

// RAddrSegSize is the size of the remote address segment in bytes.
const RAddrSegSize = 16

// RAddrSeg is the remote address segment of RDMA and atomic WQEs (struct
// mlx5_wqe_raddr_seg): 00h raddr[63:0], 08h rkey, 0Ch reserved.
type RAddrSeg struct {
	RAddr uint64
	RKey  Key
}

var raddrReserved = [RAddrSegSize / 4]uint32{3: ^uint32(0)}

// Put packs s into b[:16].
func (s RAddrSeg) Put(b []byte) {
	b = b[:RAddrSegSize]
	binary.BigEndian.PutUint64(b[0:], s.RAddr)
	binary.BigEndian.PutUint32(b[8:], uint32(s.RKey))
	binary.BigEndian.PutUint32(b[12:], 0)
}

// Append appends the 16-byte segment to b.
func (s RAddrSeg) Append(b []byte) []byte { return appendPut(b, RAddrSegSize, s) }

// ParseRAddrSeg parses 16 bytes; set bits of the reserved dword 0Ch are
// reported as a *ReservedBitsError beside the parsed segment.
func ParseRAddrSeg(b []byte) (RAddrSeg, error) {
	if len(b) != RAddrSegSize {
		return RAddrSeg{}, &SizeError{Format: "remote address segment", Want: RAddrSegSize, Got: len(b)}
	}
	return decodeRAddr(b), checkReserved("remote address segment", b, raddrReserved[:])
}

func decodeRAddr(b []byte) RAddrSeg {
	return RAddrSeg{RAddr: binary.BigEndian.Uint64(b[0:]), RKey: Key(binary.BigEndian.Uint32(b[8:]))}
}

// AtomicSegSize is the size of the atomic segment in bytes.
const AtomicSegSize = 16

// AtomicSeg is the argument segment of ATOMIC_CS and ATOMIC_FA (struct
// mlx5_wqe_atomic_seg): 00h swap_add[63:0] (the swap value, or the addend),
// 08h compare[63:0]. It has no reserved bits.
type AtomicSeg struct {
	SwapAdd uint64
	Compare uint64
}

// Put packs s into b[:16].
func (s AtomicSeg) Put(b []byte) {
	b = b[:AtomicSegSize]
	binary.BigEndian.PutUint64(b[0:], s.SwapAdd)
	binary.BigEndian.PutUint64(b[8:], s.Compare)
}

// Append appends the 16-byte segment to b.
func (s AtomicSeg) Append(b []byte) []byte { return appendPut(b, AtomicSegSize, s) }

// ParseAtomicSeg parses 16 bytes; the segment has no reserved bits.
func ParseAtomicSeg(b []byte) (AtomicSeg, error) {
	if len(b) != AtomicSegSize {
		return AtomicSeg{}, &SizeError{Format: "atomic segment", Want: AtomicSegSize, Got: len(b)}
	}
	return decodeAtomic(b), nil
}

func decodeAtomic(b []byte) AtomicSeg {
	return AtomicSeg{SwapAdd: binary.BigEndian.Uint64(b[0:]), Compare: binary.BigEndian.Uint64(b[8:])}
}

// DataSegSize is the size of the data segment in bytes.
const DataSegSize = 16

// InlineSegFlag is bit 31 of a data segment's byte_count (MLX5_INLINE_SEG):
// set, the octowords hold inline data instead of a pointer.
const InlineSegFlag = 1 << 31

// DataSeg is a data (scatter/gather) segment (struct mlx5_wqe_data_seg):
// 00h byte_count, 04h lkey, 08h addr[63:0]. A UMR uses one as the pointer
// to a translation list that is not inline. It has no reserved bits.
type DataSeg struct {
	ByteCount uint32
	LKey      Key
	Addr      uint64
}

// Put packs s into b[:16], the layout of a KLM entry (putCountKeyAddr).
func (s DataSeg) Put(b []byte) { putCountKeyAddr(b[:DataSegSize], s.ByteCount, s.LKey, s.Addr) }

// Append appends the 16-byte segment to b.
func (s DataSeg) Append(b []byte) []byte { return appendPut(b, DataSegSize, s) }

// ParseDataSeg parses 16 bytes; the segment has no reserved bits.
func ParseDataSeg(b []byte) (DataSeg, error) {
	if len(b) != DataSegSize {
		return DataSeg{}, &SizeError{Format: "data segment", Want: DataSegSize, Got: len(b)}
	}
	return decodeData(b), nil
}

func decodeData(b []byte) DataSeg {
	n, k, a := countKeyAddr(b)
	return DataSeg{ByteCount: n, LKey: k, Addr: a}
}

// Inline reports whether byte_count carries InlineSegFlag, which makes the
// segment inline data rather than a pointer.
func (s DataSeg) Inline() bool { return s.ByteCount&InlineSegFlag != 0 }
