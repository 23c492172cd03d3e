package prm

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

// RAddrSegLayout is the remote address segment's field table.
var RAddrSegLayout = newLayout("remote address segment", "raddr_seg", "the kernel's struct mlx5_wqe_raddr_seg", RAddrSegSize,
	field("raddr", func(s *RAddrSeg) *uint64 { return &s.RAddr }, dw(0x00), dw(0x04)),
	field("rkey", func(s *RAddrSeg) *Key { return &s.RKey }, dw(0x08)),
)

// Put packs s into b[:16].
func (s RAddrSeg) Put(b []byte) { RAddrSegLayout.Put(b, &s) }

// Append appends the 16-byte segment to b.
func (s RAddrSeg) Append(b []byte) []byte { return appendPut(b, RAddrSegSize, s) }

// ParseRAddrSeg parses 16 bytes; set bits of the reserved dword 0Ch are
// reported as a *ReservedBitsError beside the parsed segment.
func ParseRAddrSeg(b []byte) (RAddrSeg, error) { return RAddrSegLayout.Parse(b) }

// AtomicSegSize is the size of the atomic segment in bytes.
const AtomicSegSize = 16

// AtomicSeg is the argument segment of ATOMIC_CS and ATOMIC_FA (struct
// mlx5_wqe_atomic_seg): 00h swap_add[63:0] (the swap value, or the addend),
// 08h compare[63:0]. It has no reserved bits.
type AtomicSeg struct {
	SwapAdd uint64
	Compare uint64
}

// AtomicSegLayout is the atomic segment's field table.
var AtomicSegLayout = newLayout("atomic segment", "atomic_seg", "the kernel's struct mlx5_wqe_atomic_seg", AtomicSegSize,
	field("swap_add", func(s *AtomicSeg) *uint64 { return &s.SwapAdd }, dw(0x00), dw(0x04)),
	field("compare", func(s *AtomicSeg) *uint64 { return &s.Compare }, dw(0x08), dw(0x0C)),
)

// Put packs s into b[:16].
func (s AtomicSeg) Put(b []byte) { AtomicSegLayout.Put(b, &s) }

// Append appends the 16-byte segment to b.
func (s AtomicSeg) Append(b []byte) []byte { return appendPut(b, AtomicSegSize, s) }

// ParseAtomicSeg parses 16 bytes; the segment has no reserved bits.
func ParseAtomicSeg(b []byte) (AtomicSeg, error) { return AtomicSegLayout.Parse(b) }

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

// DataSegLayout is the data segment's field table: the bits of a KLM
// entry (KLMEntryLayout) under the kernel's names, as struct mlx5_klm and
// struct mlx5_wqe_data_seg are one layout.
var DataSegLayout = newLayout("data segment", "data_seg", "the kernel's struct mlx5_wqe_data_seg", DataSegSize,
	field("byte_count", func(s *DataSeg) *uint32 { return &s.ByteCount }, dw(0x00)),
	field("lkey", func(s *DataSeg) *Key { return &s.LKey }, dw(0x04)),
	field("addr", func(s *DataSeg) *uint64 { return &s.Addr }, dw(0x08), dw(0x0C)),
)

// Put packs s into b[:16].
func (s DataSeg) Put(b []byte) { DataSegLayout.Put(b, &s) }

// Append appends the 16-byte segment to b.
func (s DataSeg) Append(b []byte) []byte { return appendPut(b, DataSegSize, s) }

// ParseDataSeg parses 16 bytes; the segment has no reserved bits.
func ParseDataSeg(b []byte) (DataSeg, error) { return DataSegLayout.Parse(b) }

// Inline reports whether byte_count carries InlineSegFlag, which makes the
// segment inline data rather than a pointer.
func (s DataSeg) Inline() bool { return s.ByteCount&InlineSegFlag != 0 }
