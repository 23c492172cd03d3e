package prm

import "fmt"

// The UMR work request: its layout, its translation list (inline, padded
// to 64 bytes, or behind a 2 KB-aligned pointer) and its parse.

// UMRPointerAlign is the alignment a UMR pointer's address needs: 2 KB
// (translation.md 2.5, the kernel's MLX5_UMR_ALIGN).
const UMRPointerAlign = 2048

// CheckUMRPointer reports, as a *FieldError naming the address, a UMR
// pointer whose address is not 2 KB aligned.
func CheckUMRPointer(p DataSeg) error {
	if p.Addr%UMRPointerAlign != 0 {
		return &FieldError{Format: "UMR pointer", Field: "addr", Value: p.Addr,
			Reason: fmt.Sprintf("not 2 KB aligned (low 11 bits %#x)", p.Addr%UMRPointerAlign)}
	}
	return nil
}

// UMRListAlign is the unit of a UMR translation list: 64 bytes (8 MTT or
// 4 KLM entries); a shorter list is padded with zero entries.
const UMRListAlign = 64

// MTTList packs entries as a UMR translation list, padded with zero
// entries to a multiple of 64 bytes (translation.md 2.5).
func MTTList(entries []MTTEntry) []byte {
	b := make([]byte, 0, padList(len(entries)*MTTEntrySize))
	for _, e := range entries {
		b = e.Append(b)
	}
	return b[:cap(b)]
}

// KLMList packs entries as a UMR translation list, padded with zero
// entries to a multiple of 64 bytes (translation.md 2.5).
func KLMList(entries []KLMEntry) []byte {
	b := make([]byte, 0, padList(len(entries)*KLMEntrySize))
	for _, e := range entries {
		b = e.Append(b)
	}
	return b[:cap(b)]
}

func padList(n int) int { return (n + UMRListAlign - 1) / UMRListAlign * UMRListAlign }

// umrHeaderDS is the part of every UMR WQE before its list or pointer:
// control (1), UMR control (3) and MKC (4) octowords.
const umrHeaderDS = (CtrlSegSize + UMRCtrlSize + MKCSize) / OctowordSize

// UMRWQE is a UMR work request (opcode UMR, 0x25). Its length varies
// with its inline list, so it is framed by hand (DS, Put, ParseUMRWQE);
// its fixed segments are field tables (CtrlSegLayout, MKCLayout). It is
// laid out as
//
//	00h  control segment; Imm is the target key (the kernel's umr_mkey)
//	10h  UMR control segment (48 bytes)
//	40h  MKey context image (64 bytes)
//	80h  UMR.Inline set: the list, UMR.TranslationOctwordActualSize
//	     octowords, then, when UMR.TranslationOffsetEn is clear, the BSF,
//	     UMR.BSFOctwordActualSize octowords; UMR.Inline clear: one data
//	     segment, the UMR pointer to the list
//
// and ds counts all of it: 8 octowords plus the list and BSF, or 9. The
// kernel pads an inline list with zero entries to 64 bytes (MTTList,
// KLMList); prm lays out List as given, and leaves the 64-byte and 2 KB
// (CheckUMRPointer) rules to the model that runs the UMR.
type UMRWQE struct {
	Ctrl CtrlSeg
	UMR  UMRCtrl
	MKC  MKC
	// List is the inline translation list, raw: MTT or KLM entries as the
	// target's access mode after the UMR reads them (translation.md 3.1).
	List []byte
	// BSF is the inline BSF, carried opaque (the model has no BSF).
	BSF []byte
	// Pointer names the list when UMR.Inline is clear.
	Pointer DataSeg
}

// DS returns the WQE's size in octowords, or a *FieldError when its parts
// cannot be laid out: an inline list or BSF whose length is not the size
// the UMR control segment gives, a list or BSF with inline clear, or more
// than 63 octowords.
func (w *UMRWQE) DS() (uint8, error) {
	const format = "UMR WQE"
	ds := umrHeaderDS
	u := &w.UMR
	switch {
	case !u.Inline:
		if len(w.List) != 0 || len(w.BSF) != 0 {
			return 0, &FieldError{Format: format, Field: "inline", Value: 0,
				Reason: fmt.Sprintf("a %d-byte inline list and %d-byte BSF given with inline clear", len(w.List), len(w.BSF))}
		}
		ds++
	default:
		if len(w.List) != OctowordSize*int(u.TranslationOctwordActualSize) {
			return 0, &FieldError{Format: format, Field: "translation_octword_actual_size", Value: uint64(u.TranslationOctwordActualSize),
				Reason: fmt.Sprintf("the inline list is %d bytes", len(w.List))}
		}
		ds += int(u.TranslationOctwordActualSize)
		bsf := 0
		if !u.TranslationOffsetEn {
			bsf = int(u.BSFOctwordActualSize)
		}
		if len(w.BSF) != OctowordSize*bsf {
			return 0, &FieldError{Format: format, Field: "bsf_octword_actual_size", Value: uint64(bsf),
				Reason: fmt.Sprintf("the inline BSF is %d bytes (none inline with translation_offset_en set)", len(w.BSF))}
		}
		ds += bsf
	}
	return checkDS(format, ds)
}

// Put packs w into b[:16 ds], writing opcode UMR and the WQE's ds in its
// control segment whatever w.Ctrl holds. It panics if DS reports an error.
func (w *UMRWQE) Put(b []byte) {
	ds, err := w.DS()
	if err != nil {
		panic(err)
	}
	b = b[:OctowordSize*int(ds)]
	c := w.Ctrl
	c.Opcode, c.DS = OpUMR, ds
	c.Put(b[0:])
	w.UMR.Put(b[0x10:])
	w.MKC.Put(b[0x40:])
	if !w.UMR.Inline {
		w.Pointer.Put(b[0x80:])
		return
	}
	n := copy(b[0x80:], w.List)
	copy(b[0x80+n:], w.BSF)
}

// Append appends the WQE to b; it panics if DS reports an error.
func (w *UMRWQE) Append(b []byte) []byte {
	ds, err := w.DS()
	if err != nil {
		panic(err)
	}
	n := len(b)
	b = append(b, make([]byte, OctowordSize*int(ds))...)
	w.Put(b[n:])
	return b
}

// ParseUMRWQE parses a UMR WQE of exactly 16 ds bytes, ds read from its
// control segment. A ds that disagrees with the UMR control segment's sizes
// and an opcode other than UMR are reported as a *FieldError, a reserved
// fence mode likewise, and set reserved bits of the control, UMR control
// and MKC segments as one *ReservedBitsError with offsets from the WQE's
// start; each beside the WQE parsed as far as the bytes allow.
func ParseUMRWQE(b []byte) (UMRWQE, error) { return parseUMRWQE(b, "UMR WQE") }

// parseUMRWQE is ParseUMRWQE naming format in its errors.
func parseUMRWQE(b []byte, format string) (UMRWQE, error) {
	var w UMRWQE
	if len(b) < CtrlSegSize {
		return w, &SizeError{Format: format, Want: umrHeaderDS * OctowordSize, Got: len(b)}
	}
	var e wqeErrs
	w.Ctrl = parseCtrl(&e, format, 0, b)
	if w.Ctrl.DS < umrHeaderDS {
		e.field(&FieldError{Format: format, Field: "ds", Value: uint64(w.Ctrl.DS), Reason: "a UMR WQE is at least 8 octowords"})
		return w, e.err(format)
	}
	if n := OctowordSize * int(w.Ctrl.DS); len(b) != n {
		return w, &SizeError{Format: format, Want: n, Got: len(b)}
	}
	if w.Ctrl.Opcode != OpUMR {
		e.field(&FieldError{Format: format, Field: "opcode", Value: uint64(w.Ctrl.Opcode), Reason: "not UMR (0x25)"})
	}
	u, err := ParseUMRCtrl(b[0x10:0x40])
	w.UMR = u
	e.reserved(0x10, err)
	w.MKC, err = ParseMKC(b[0x40:0x80])
	e.reserved(0x40, err)

	rest := b[0x80:]
	need, list, bsf := umrHeaderDS+1, 0, 0
	if u.Inline {
		list = OctowordSize * int(u.TranslationOctwordActualSize)
		if !u.TranslationOffsetEn {
			bsf = OctowordSize * int(u.BSFOctwordActualSize)
		}
		need = umrHeaderDS + (list+bsf)/OctowordSize
	}
	if need != int(w.Ctrl.DS) {
		e.field(&FieldError{Format: format, Field: "ds", Value: uint64(w.Ctrl.DS),
			Reason: fmt.Sprintf("the UMR control segment's sizes need %d octowords", need)})
		return w, e.err(format)
	}
	if !u.Inline {
		DataSegLayout.Decode(&w.Pointer, rest)
	} else {
		w.List = cloneBytes(rest[:list])
		w.BSF = cloneBytes(rest[list : list+bsf])
	}
	return w, e.err(format)
}

// cloneBytes copies b, nil when it is empty.
func cloneBytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}
