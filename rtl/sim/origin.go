package sim

// Origin names, for the testbench only, whose bytes a transaction carries:
// the operation Seq, the byte offset Off of the transaction's first byte
// in that operation's request, and the key (Key, at KLM depth Level) whose
// segment the bytes are. The data path's moves, requests and TLPs carry it
// so that a monitor on the host side (the IOMMU's, issue 36) can say which
// access a translation or a fault belongs to, as a verification
// environment's transaction IDs do. No unit decides anything on it: it is
// not on the wire, in a packed format or in the waveform.
type Origin struct {
	Seq   int
	Off   uint64
	Key   uint32
	Level uint8
	// IOVA is, on a request the device sends translated (ATS, AT 10b),
	// the untranslated address of its first byte, which is no longer on
	// the TLP; meaningless elsewhere.
	IOVA uint64
}

// At is the origin of the byte n bytes further on in the same segment.
func (o Origin) At(n uint64) Origin {
	o.Off += n
	o.IOVA += n
	return o
}
