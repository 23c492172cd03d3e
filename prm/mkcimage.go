package prm

import "encoding/binary"

// The MKC's layout written out, field by field, for the model's hot paths:
// a context is decoded every time the MKC cache is filled from ICM, and the
// table-driven MKCLayout.Decode (a closure call and a loop over bit ranges
// for each of 31 fields) cost about 3,000 instructions a decode.
// MKCLayout stays the one description of the format: TestMKCImageMatchesTable
// and FuzzMKCImage hold these two functions to it, bit for bit.

// decodeMKC sets m to the fields of a 64-byte image, reserved bits aside.
func decodeMKC(m *MKC, b []byte) {
	b = b[:MKCSize]
	be := binary.BigEndian
	d00, d04, d08, d0c := be.Uint32(b[0x00:]), be.Uint32(b[0x04:]), be.Uint32(b[0x08:]), be.Uint32(b[0x0C:])
	d38, d3c := be.Uint32(b[0x38:]), be.Uint32(b[0x3C:])
	bit := func(d uint32, n uint) bool { return d>>n&1 != 0 }
	*m = MKC{
		Free:                    bit(d00, 30),
		AccessMode:              AccessMode(d00>>26&7<<2 | d00>>8&3),
		RelaxedOrderingWrite:    bit(d00, 18),
		SmallFence:              bit(d00, 16),
		UMREn:                   bit(d00, 15),
		A:                       bit(d00, 14),
		RW:                      bit(d00, 13),
		RR:                      bit(d00, 12),
		LW:                      bit(d00, 11),
		LR:                      bit(d00, 10),
		TunneledAtomic:          bit(d00, 6),
		MATranslationMode:       uint8(d00 >> 4 & 3),
		SF:                      uint8(d00 & 0xF),
		QPN:                     d04 >> 8,
		Variant:                 uint8(d04),
		PASID:                   d08 & 0xFFFFFF,
		Length64:                bit(d0c, 31),
		BSFEn:                   bit(d0c, 30),
		ExpectedSigerrCount:     bit(d0c, 26),
		EnRinval:                bit(d0c, 24),
		PD:                      d0c & 0xFFFFFF,
		StartAddr:               be.Uint64(b[0x10:]),
		Len:                     be.Uint64(b[0x18:]),
		BSFOctwordSize:          be.Uint32(b[0x20:]),
		BSFHandle:               uint64(be.Uint32(b[0x24:])&0xFFFF)<<32 | uint64(be.Uint32(b[0x28:])),
		MTTHandle:               uint64(be.Uint32(b[0x2C:])&0xFFFF)<<32 | uint64(be.Uint32(b[0x30:])),
		TranslationsOctwordSize: be.Uint32(b[0x34:]),
		RelaxedOrderingRead:     bit(d38, 6),
		LogEntitySize:           uint8(d38 & 0x1F),
		CryptoEn:                uint8(d3c >> 27 & 3),
		GenerationCounter:       uint16(d3c),
	}
}

// encodeMKC packs m into b (64 bytes), each field cut to its width and
// every reserved bit 0.
func encodeMKC(b []byte, m *MKC) {
	b = b[:MKCSize]
	be := binary.BigEndian
	bit := func(v bool, n uint) uint32 { return uint32(b2u(v)) << n }
	am := uint32(m.AccessMode)
	be.PutUint32(b[0x00:], bit(m.Free, 30)|am>>2&7<<26|bit(m.RelaxedOrderingWrite, 18)|bit(m.SmallFence, 16)|
		bit(m.UMREn, 15)|bit(m.A, 14)|bit(m.RW, 13)|bit(m.RR, 12)|bit(m.LW, 11)|bit(m.LR, 10)|am&3<<8|
		bit(m.TunneledAtomic, 6)|uint32(m.MATranslationMode&3)<<4|uint32(m.SF&0xF))
	be.PutUint32(b[0x04:], m.QPN<<8|uint32(m.Variant))
	be.PutUint32(b[0x08:], m.PASID&0xFFFFFF)
	be.PutUint32(b[0x0C:], bit(m.Length64, 31)|bit(m.BSFEn, 30)|bit(m.ExpectedSigerrCount, 26)|bit(m.EnRinval, 24)|m.PD&0xFFFFFF)
	be.PutUint64(b[0x10:], m.StartAddr)
	be.PutUint64(b[0x18:], m.Len)
	be.PutUint32(b[0x20:], m.BSFOctwordSize)
	be.PutUint32(b[0x24:], uint32(m.BSFHandle>>32&0xFFFF))
	be.PutUint32(b[0x28:], uint32(m.BSFHandle))
	be.PutUint32(b[0x2C:], uint32(m.MTTHandle>>32&0xFFFF))
	be.PutUint32(b[0x30:], uint32(m.MTTHandle))
	be.PutUint32(b[0x34:], m.TranslationsOctwordSize)
	be.PutUint32(b[0x38:], bit(m.RelaxedOrderingRead, 6)|uint32(m.LogEntitySize&0x1F))
	be.PutUint32(b[0x3C:], uint32(m.CryptoEn&3)<<27|uint32(m.GenerationCounter))
}
