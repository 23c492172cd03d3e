package prm

import "fmt"

// The local invalidate, as the Linux mlx5 driver posts it: a UMR WQE of
// a fixed shape.

// LocalInvWQE is a local invalidate as the Linux mlx5 driver posts it
// (handle_local_inv, set_linv_umr_seg, set_linv_mkey_seg): a UMR WQE whose
// control segment's Imm is the key to invalidate, whose UMR control segment
// has inline set, no check_free, no sizes and mkey_ctx_mask free alone, and
// whose MKC image is free = 1 with every other field 0: 8 octowords, 2
// basic blocks. (rdma-core also names an opcode LOCAL_INVAL, 0x1b; the
// kernel never posts it and prm does not lay it out.) It is a UMR WQE of
// one shape, framed as UMRWQE is; its segments are those of a UMR.
type LocalInvWQE struct {
	Ctrl CtrlSeg // Ctrl.Imm is the key to invalidate
}

// localInvDS is the size of a local invalidate in octowords.
const localInvDS = umrHeaderDS

// Key is the key the WQE invalidates (Ctrl.Imm).
func (w LocalInvWQE) Key() Key { return Key(w.Ctrl.Imm) }

// UMRWQE returns the UMR WQE the local invalidate is.
func (w LocalInvWQE) UMRWQE() UMRWQE {
	c := w.Ctrl
	c.Opcode, c.DS = OpUMR, localInvDS
	return UMRWQE{Ctrl: c, UMR: UMRCtrl{Inline: true, MKeyMask: MaskFree}, MKC: MKC{Free: true}}
}

// Put packs w into b[:128], writing opcode UMR and ds 8 whatever w.Ctrl
// holds.
func (w LocalInvWQE) Put(b []byte) {
	u := w.UMRWQE()
	u.Put(b)
}

// Append appends the 128-byte WQE to b.
func (w LocalInvWQE) Append(b []byte) []byte {
	u := w.UMRWQE()
	return u.Append(b)
}

// IsLocalInvalidate reports whether w is exactly the local invalidate
// LocalInvWQE lays out, control segment aside.
func (w *UMRWQE) IsLocalInvalidate() bool { return localInvMismatch(w) == nil }

// localInvMismatch names the first part of w that a local invalidate does
// not have, as a *FieldError, or returns nil.
func localInvMismatch(w *UMRWQE) error {
	const format = "local invalidate WQE"
	want := LocalInvWQE{}.UMRWQE()
	u := &w.UMR
	for _, f := range []struct {
		name      string
		got, want uint64
	}{
		{"inline", b2u(u.Inline), 1},
		{"check_free", uint64(u.CheckFree), 0},
		{"translation_offset_en", b2u(u.TranslationOffsetEn), 0},
		{"translation_octword_actual_size", uint64(u.TranslationOctwordActualSize), 0},
		{"bsf_octword_actual_size", uint64(u.BSFOctwordActualSize), 0},
		{"translation_offset", u.TranslationOffset, 0},
		{"mkey_ctx_mask", uint64(u.MKeyMask), uint64(MaskFree)},
		{"list bytes", uint64(len(w.List)), 0},
		{"BSF bytes", uint64(len(w.BSF)), 0},
		{"pointer byte_count", uint64(w.Pointer.ByteCount), 0},
		{"pointer lkey", uint64(w.Pointer.LKey), 0},
		{"pointer addr", w.Pointer.Addr, 0},
	} {
		if f.got != f.want {
			return &FieldError{Format: format, Field: f.name, Value: f.got, Reason: fmt.Sprintf("a local invalidate has %#x", f.want)}
		}
	}
	for i := range MKCLayout.fields {
		f := &MKCLayout.fields[i]
		if got, want := f.Get(&w.MKC), f.Get(&want.MKC); got != want {
			return &FieldError{Format: format, Field: "mkc " + f.Name, Value: got,
				Reason: fmt.Sprintf("a local invalidate's image has %#x (free = 1, all else 0)", want)}
		}
	}
	return nil
}

// ParseLocalInvWQE parses 128 bytes as ParseUMRWQE does, then reports as a
// *FieldError the first field in which the WQE is not a local invalidate;
// its errors name the format "local invalidate WQE".
func ParseLocalInvWQE(b []byte) (LocalInvWQE, error) {
	const format = "local invalidate WQE"
	if len(b) != OctowordSize*localInvDS {
		return LocalInvWQE{}, &SizeError{Format: format, Want: OctowordSize * localInvDS, Got: len(b)}
	}
	if ds := b[7] & MaxDS; ds != localInvDS {
		var e wqeErrs
		w := LocalInvWQE{Ctrl: parseCtrl(&e, format, 0, b)}
		e.field(&FieldError{Format: format, Field: "ds", Value: uint64(ds), Reason: "a local invalidate is 8 octowords"})
		return w, e.err(format)
	}
	u, err := parseUMRWQE(b, format)
	return LocalInvWQE{Ctrl: u.Ctrl}, joinErrs(localInvMismatch(&u), err)
}
