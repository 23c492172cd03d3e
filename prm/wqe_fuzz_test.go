package prm_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"mkeysim/prm"
)

// splitErrs flattens err (errors.Join trees included) into its
// *FieldErrors and its *ReservedBitsError, as an error or nil; any other
// error fails the test.
func splitErrs(t *testing.T, err error) (fields []*prm.FieldError, res error) {
	t.Helper()
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case interface{ Unwrap() []error }:
			for _, x := range e.Unwrap() {
				walk(x)
			}
		case *prm.ReservedBitsError:
			if res != nil {
				t.Fatalf("two reserved-bits errors: %v", err)
			}
			res = e
		case *prm.FieldError:
			fields = append(fields, e)
		default:
			t.Fatalf("unexpected error %T: %v", err, err)
		}
	}
	walk(err)
	return fields, res
}

// onlyFields reports whether every field error names one of names.
func onlyFields(fields []*prm.FieldError, names ...string) bool {
	for _, f := range fields {
		ok := false
		for _, n := range names {
			ok = ok || f.Field == n
		}
		if !ok {
			return false
		}
	}
	return true
}

// hasField reports whether a field error names field.
func hasField(fields []*prm.FieldError, field string) bool {
	for _, f := range fields {
		if f.Field == field {
			return true
		}
	}
	return false
}

// hasSizeError reports whether err is, or wraps, a *SizeError.
func hasSizeError(err error) bool {
	var se *prm.SizeError
	return errors.As(err, &se)
}

// checkFence fails unless a *FieldError for fm is among fields exactly when
// the control segment's fence mode is reserved.
func checkFence(t *testing.T, ctrl []byte, fields []*prm.FieldError) {
	t.Helper()
	reserved := ctrl[11]>>5 > 4
	got := false
	for _, f := range fields {
		if f.Field == "fm" {
			got = true
			if f.Value != uint64(ctrl[11]>>5) {
				t.Fatalf("fm error names %#x, the segment has %#x", f.Value, ctrl[11]>>5)
			}
		}
	}
	if got != reserved {
		t.Fatalf("fm %d: reported %v", ctrl[11]>>5, got)
	}
}

func FuzzCtrlSeg(f *testing.F) {
	for _, row := range ctrlRows {
		f.Add(unhex(f, row.img, prm.CtrlSegSize))
	}
	f.Add(bytes.Repeat([]byte{0xff}, prm.CtrlSegSize))
	f.Add(unhex(f, "00000525 00004208 000000e9 00012a07", prm.CtrlSegSize))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := prm.ParseCtrlSeg(in)
		if len(in) != prm.CtrlSegSize {
			checkSizeError(t, err, prm.CtrlSegSize, len(in))
			return
		}
		fields, res := splitErrs(t, err)
		checkFence(t, in, fields)
		if len(fields) > 1 || !onlyFields(fields, "fm") {
			t.Fatalf("field errors %v", err)
		}
		cleared := checkParsed(t, "WQE control segment", in, ctrlReservedHand[:], res, c.Append(nil))
		c2, err := prm.ParseCtrlSeg(cleared)
		if fields2, res2 := splitErrs(t, err); c2 != c || res2 != nil || len(fields2) != len(fields) {
			t.Fatalf("reparse = %+v, %v; want %+v", c2, err, c)
		}
	})
}

func FuzzRAddrSeg(f *testing.F) {
	for _, row := range raddrRows {
		f.Add(unhex(f, row.img, prm.RAddrSegSize))
	}
	f.Add(bytes.Repeat([]byte{0xff}, prm.RAddrSegSize))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := prm.ParseRAddrSeg(in)
		if len(in) != prm.RAddrSegSize {
			checkSizeError(t, err, prm.RAddrSegSize, len(in))
			return
		}
		cleared := checkParsed(t, "remote address segment", in, []uint32{0, 0, 0, ^uint32(0)}, err, s.Append(nil))
		if s2, err := prm.ParseRAddrSeg(cleared); err != nil || s2 != s {
			t.Fatalf("reparse = %+v, %v", s2, err)
		}
	})
}

func FuzzAtomicSeg(f *testing.F) {
	for _, row := range atomicRows {
		f.Add(unhex(f, row.img, prm.AtomicSegSize))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := prm.ParseAtomicSeg(in)
		if len(in) != prm.AtomicSegSize {
			checkSizeError(t, err, prm.AtomicSegSize, len(in))
			return
		}
		checkParsed(t, "atomic segment", in, make([]uint32, 4), err, s.Append(nil))
	})
}

func FuzzDataSeg(f *testing.F) {
	for _, row := range dataRows {
		f.Add(unhex(f, row.img, prm.DataSegSize))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := prm.ParseDataSeg(in)
		if len(in) != prm.DataSegSize {
			checkSizeError(t, err, prm.DataSegSize, len(in))
			return
		}
		checkParsed(t, "data segment", in, make([]uint32, 4), err, s.Append(nil))
		if s.Inline() != (in[0]&0x80 != 0) {
			t.Fatalf("Inline = %v for byte_count %#x", s.Inline(), s.ByteCount)
		}
		if err := prm.CheckUMRPointer(s); (err == nil) != (in[14]&0x07 == 0 && in[15] == 0) {
			t.Fatalf("CheckUMRPointer(%#x) = %v", s.Addr, err)
		}
	})
}

// withDS returns in with its control segment's ds set to its length in
// octowords, when that fits: the fuzzer then reaches the segments behind
// the control segment more often than with ds left as mutated.
func withDS(in []byte) []byte {
	if len(in) < prm.CtrlSegSize || len(in)%prm.OctowordSize != 0 || len(in) > prm.OctowordSize*prm.MaxDS {
		return nil
	}
	b := append([]byte(nil), in...)
	b[7] = b[7]&^prm.MaxDS | byte(len(in)/prm.OctowordSize)
	return b
}

func FuzzUMRWQE(f *testing.F) {
	for _, row := range umrWQERows {
		f.Add(unhex(f, row.img, 16*int(row.ds)))
	}
	f.Add(unhex(f, localInvImg, 128))
	f.Add(bytes.Repeat([]byte{0xff}, 128))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, b := range [][]byte{in, withDS(in)} {
			if b == nil {
				continue
			}
			w, err := prm.ParseUMRWQE(b)
			if hasSizeError(err) {
				continue
			}
			fields, res := splitErrs(t, err)
			if !onlyFields(fields, "fm", "opcode") {
				continue // ds does not fit the segments: nothing more to pack
			}
			checkFence(t, b, fields)
			if (b[3] != byte(prm.OpUMR)) != hasField(fields, "opcode") {
				t.Fatalf("opcode %#x: errors %v", b[3], err)
			}
			ds, derr := w.DS()
			if derr != nil || ds != w.Ctrl.DS || 16*int(ds) != len(b) {
				t.Fatalf("parsed WQE: DS = %d, %v; ctrl ds %d, %d bytes", ds, derr, w.Ctrl.DS, len(b))
			}
			repacked := w.Append(nil)
			if repacked[3] != byte(prm.OpUMR) {
				t.Fatalf("Put wrote opcode %#x", repacked[3])
			}
			repacked[3] = b[3] // Put writes UMR; the input may carry another opcode
			mask := append(umrHeaderReservedHand(w.UMR.TranslationOffsetEn), make([]uint32, len(b)/4-32)...)
			cleared := checkParsed(t, "UMR WQE", b, mask, res, repacked)
			w2, err := prm.ParseUMRWQE(cleared)
			if _, res2 := splitErrs(t, err); res2 != nil || !reflect.DeepEqual(w2, w) {
				t.Fatalf("reparse = %+v, %v\nwant %+v", w2, err, w)
			}
		}
	})
}

func FuzzLocalInvWQE(f *testing.F) {
	f.Add(unhex(f, localInvImg, 128))
	f.Add(unhex(f, umrWQERows[3].img, 128))
	f.Fuzz(func(t *testing.T, in []byte) {
		w, err := prm.ParseLocalInvWQE(in)
		if len(in) != 128 {
			checkSizeError(t, err, 128, len(in))
			return
		}
		fields, res := splitErrs(t, err)
		if !onlyFields(fields, "fm") {
			return // not a local invalidate
		}
		checkFence(t, in, fields)
		mask := umrHeaderReservedHand(false)
		cleared := checkParsed(t, "local invalidate WQE", in, mask, res, w.Append(nil))
		u, err := prm.ParseUMRWQE(cleared)
		if _, res := splitErrs(t, err); res != nil || !u.IsLocalInvalidate() || w.Key() != prm.Key(u.Ctrl.Imm) {
			t.Fatalf("reparse = %+v, %v", u, err)
		}
	})
}

// sendRAddrHand and sendAtomicHand: which opcodes carry a remote address
// and an atomic segment (the kernel's handle_qpt_rc).
var (
	sendRAddrHand  = map[prm.Opcode]bool{0x08: true, 0x09: true, 0x10: true, 0x11: true, 0x12: true}
	sendAtomicHand = map[prm.Opcode]bool{0x11: true, 0x12: true}
	sendOpsHand    = []prm.Opcode{0x00, 0x01, 0x08, 0x09, 0x0a, 0x0b, 0x10, 0x11, 0x12}
)

func FuzzSendWQE(f *testing.F) {
	for _, row := range sendRows {
		f.Add(unhex(f, row.img, 16*int(row.w.Ctrl.DS)))
	}
	f.Add(bytes.Repeat([]byte{0xff}, 64))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, b := range [][]byte{in, withDS(in)} {
			if b == nil {
				continue
			}
			w, err := prm.ParseSendWQE(b)
			if hasSizeError(err) {
				continue
			}
			fields, res := splitErrs(t, err)
			if hasField(fields, "opcode") || hasField(fields, "ds") {
				continue // no layout for the opcode, or ds too small for it
			}
			inline := 0
			for _, fe := range fields {
				switch {
				case fe.Field == "fm":
				case strings.HasPrefix(fe.Field, "data[") && fe.Value&prm.InlineSegFlag != 0:
					inline++
				default:
					t.Fatalf("unexpected field error %v", fe)
				}
			}
			checkFence(t, b, fields)
			for _, d := range w.Data {
				if d.Inline() {
					inline--
				}
			}
			if inline != 0 {
				t.Fatalf("inline data segments and their errors differ by %d: %v", inline, err)
			}
			ds, derr := w.DS()
			if derr != nil || ds != w.Ctrl.DS || 16*int(ds) != len(b) {
				t.Fatalf("parsed WQE: DS = %d, %v; ctrl ds %d, %d bytes", ds, derr, w.Ctrl.DS, len(b))
			}
			mask := append([]uint32(nil), ctrlReservedHand[:]...)
			if sendRAddrHand[w.Ctrl.Opcode] {
				mask = append(mask, 0, 0, 0, ^uint32(0))
			}
			mask = append(mask, make([]uint32, len(b)/4-len(mask))...)
			cleared := checkParsed(t, "send WQE", b, mask, res, w.Append(nil))
			w2, err := prm.ParseSendWQE(cleared)
			if _, res2 := splitErrs(t, err); res2 != nil || !reflect.DeepEqual(w2, w) {
				t.Fatalf("reparse = %+v, %v\nwant %+v", w2, err, w)
			}
		}
	})
}

func FuzzCQE(f *testing.F) {
	for _, row := range cqeRows {
		f.Add(cqeImg(f, row.dw))
	}
	f.Add(bytes.Repeat([]byte{0xff}, prm.CQESize))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := prm.ParseCQE(in)
		if len(in) != prm.CQESize {
			checkSizeError(t, err, prm.CQESize, len(in))
			return
		}
		op := prm.CQEOpcode(in[0x3f] >> 4)
		var fe *prm.FieldError
		if other := op == prm.CQESigErr || op.IsError(); other != (err != nil) || (err != nil && (!errors.As(err, &fe) || fe.Field != "opcode")) {
			t.Fatalf("opcode %v: err = %v", op, err)
		}
		// A CQE has no reserved bits: every 64 bytes pack back to themselves.
		if got := c.Append(nil); !bytes.Equal(got, in) {
			t.Fatalf("repacked\n %s\nwant\n %s", dwords(got), dwords(in))
		}
		if p, _ := prm.PeekCQEOpcode(in); p != c.Opcode {
			t.Fatalf("PeekCQEOpcode = %v, parsed %v", p, c.Opcode)
		}
	})
}

func FuzzErrCQE(f *testing.F) {
	for _, row := range errCQERows {
		f.Add(cqeImg(f, row.dw))
	}
	f.Add(bytes.Repeat([]byte{0xff}, prm.CQESize))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := prm.ParseErrCQE(in)
		if len(in) != prm.CQESize {
			checkSizeError(t, err, prm.CQESize, len(in))
			return
		}
		fields, res := splitErrs(t, err)
		if op := prm.CQEOpcode(in[0x3f] >> 4); op.IsError() == (len(fields) == 1) || !onlyFields(fields, "opcode") {
			t.Fatalf("opcode %v: err = %v", op, err)
		}
		cleared := checkParsed(t, "error CQE", in, errCQEReservedHand[:], res, c.Append(nil))
		if c2, err := prm.ParseErrCQE(cleared); c2 != c {
			t.Fatalf("reparse = %+v, %v", c2, err)
		}
	})
}

// genCtrl draws a control segment whose fields fit their widths, fence
// mode defined.
func genCtrl(t *rapid.T) prm.CtrlSeg {
	return prm.CtrlSeg{
		OpMod:     rapid.Uint8().Draw(t, "opmod"),
		WQEIndex:  rapid.Uint16().Draw(t, "wqe_index"),
		Opcode:    prm.Opcode(rapid.Uint8().Draw(t, "opcode")),
		QPN:       rapid.Uint32Range(0, 0xffffff).Draw(t, "qpn"),
		DS:        rapid.Uint8Range(0, prm.MaxDS).Draw(t, "ds"),
		Signature: rapid.Uint8().Draw(t, "signature"),
		Fence:     prm.FenceMode(rapid.Uint8Range(0, 4).Draw(t, "fm")),
		CE:        prm.CompletionMode(rapid.Uint8Range(0, 3).Draw(t, "ce")),
		SE:        rapid.Bool().Draw(t, "se"),
		Imm:       rapid.Uint32().Draw(t, "imm"),
	}
}

func genBytes(t *rapid.T, n int, label string) []byte {
	if n == 0 {
		return nil
	}
	return rapid.SliceOfN(rapid.Byte(), n, n).Draw(t, label)
}

func TestCtrlSegValueRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCtrl(t)
		img := c.Append(nil)
		if p, err := prm.ParseCtrlSeg(img); err != nil || p != c {
			t.Fatalf("round trip %+v -> %+v, %v", c, p, err)
		}
		// A reserved fence mode packs, and parses back beside its error.
		c.Fence = prm.FenceMode(rapid.Uint8Range(5, 7).Draw(t, "reserved fm"))
		var fe *prm.FieldError
		if p, err := prm.ParseCtrlSeg(c.Append(nil)); p != c || !errors.As(err, &fe) || fe.Field != "fm" {
			t.Fatalf("reserved fence %+v -> %+v, %v", c, p, err)
		}
	})
}

func TestSegmentValueRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := prm.RAddrSeg{RAddr: rapid.Uint64().Draw(t, "raddr"), RKey: prm.Key(rapid.Uint32().Draw(t, "rkey"))}
		if p, err := prm.ParseRAddrSeg(r.Append(nil)); err != nil || p != r {
			t.Fatalf("raddr %+v -> %+v, %v", r, p, err)
		}
		a := prm.AtomicSeg{SwapAdd: rapid.Uint64().Draw(t, "swap_add"), Compare: rapid.Uint64().Draw(t, "compare")}
		if p, err := prm.ParseAtomicSeg(a.Append(nil)); err != nil || p != a {
			t.Fatalf("atomic %+v -> %+v, %v", a, p, err)
		}
		d := prm.DataSeg{ByteCount: rapid.Uint32().Draw(t, "byte_count"), LKey: prm.Key(rapid.Uint32().Draw(t, "lkey")), Addr: rapid.Uint64().Draw(t, "addr")}
		if p, err := prm.ParseDataSeg(d.Append(nil)); err != nil || p != d {
			t.Fatalf("data %+v -> %+v, %v", d, p, err)
		}
	})
}

// genUMRWQE draws a UMR WQE that can be laid out: sizes that match its
// inline list and BSF, at most 63 octowords.
var genUMRWQE = rapid.Custom(func(t *rapid.T) prm.UMRWQE {
	w := prm.UMRWQE{Ctrl: genCtrl(t), MKC: genMKC.Draw(t, "mkc")}
	w.UMR = prm.UMRCtrl{
		Inline:              rapid.Bool().Draw(t, "inline"),
		CheckFree:           prm.CheckFree(rapid.Uint8Range(0, 3).Draw(t, "check_free")),
		TranslationOffsetEn: rapid.Bool().Draw(t, "offset_en"),
		MKeyMask:            prm.MKeyMask(rapid.Uint64().Draw(t, "mask")),
	}
	if w.UMR.TranslationOffsetEn {
		w.UMR.TranslationOffset = rapid.Uint64Range(0, prm.MaxTranslationOffset).Draw(t, "offset")
	}
	if !w.UMR.Inline {
		w.UMR.TranslationOctwordActualSize = rapid.Uint16().Draw(t, "size")
		if !w.UMR.TranslationOffsetEn {
			w.UMR.BSFOctwordActualSize = rapid.Uint16().Draw(t, "bsf size")
		}
		w.Pointer = prm.DataSeg{ByteCount: rapid.Uint32().Draw(t, "byte_count"), LKey: prm.Key(rapid.Uint32().Draw(t, "lkey")), Addr: rapid.Uint64().Draw(t, "addr")}
	} else {
		room := prm.MaxDS - 8
		list := rapid.IntRange(0, room).Draw(t, "list octowords")
		w.UMR.TranslationOctwordActualSize = uint16(list)
		w.List = genBytes(t, 16*list, "list")
		if !w.UMR.TranslationOffsetEn {
			bsf := rapid.IntRange(0, room-list).Draw(t, "bsf octowords")
			w.UMR.BSFOctwordActualSize = uint16(bsf)
			w.BSF = genBytes(t, 16*bsf, "bsf")
		}
	}
	ds, err := w.DS()
	if err != nil {
		t.Fatalf("generated WQE: %v", err)
	}
	w.Ctrl.Opcode, w.Ctrl.DS = prm.OpUMR, ds
	return w
})

func TestUMRWQEValueRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genUMRWQE.Draw(t, "wqe")
		img := w.Append(nil)
		if len(img) != 16*int(w.Ctrl.DS) {
			t.Fatalf("%d bytes for ds %d", len(img), w.Ctrl.DS)
		}
		p, err := prm.ParseUMRWQE(img)
		if err != nil || !reflect.DeepEqual(p, w) {
			t.Fatalf("round trip\n %+v\n-> %+v, %v", w, p, err)
		}
	})
}

func TestLocalInvValueRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := prm.LocalInvWQE{Ctrl: genCtrl(t)}
		w.Ctrl.Opcode, w.Ctrl.DS = prm.OpUMR, 8
		p, err := prm.ParseLocalInvWQE(w.Append(nil))
		if err != nil || p != w {
			t.Fatalf("round trip %+v -> %+v, %v", w, p, err)
		}
	})
}

// genSendWQE draws a send WQE of a laid-out opcode, the segments it does
// not carry zero, no inline data segment, at most 63 octowords.
var genSendWQE = rapid.Custom(func(t *rapid.T) prm.SendWQE {
	w := prm.SendWQE{Ctrl: genCtrl(t)}
	w.Ctrl.Opcode = rapid.SampledFrom(sendOpsHand).Draw(t, "opcode")
	fixed := 1
	if sendRAddrHand[w.Ctrl.Opcode] {
		w.RAddr = prm.RAddrSeg{RAddr: rapid.Uint64().Draw(t, "raddr"), RKey: prm.Key(rapid.Uint32().Draw(t, "rkey"))}
		fixed++
	}
	if sendAtomicHand[w.Ctrl.Opcode] {
		w.Atomic = prm.AtomicSeg{SwapAdd: rapid.Uint64().Draw(t, "swap_add"), Compare: rapid.Uint64().Draw(t, "compare")}
		fixed++
	}
	for i, n := 0, rapid.IntRange(0, prm.MaxDS-fixed).Draw(t, "data segments"); i < n; i++ {
		w.Data = append(w.Data, prm.DataSeg{ByteCount: rapid.Uint32Range(0, prm.InlineSegFlag-1).Draw(t, "byte_count"),
			LKey: prm.Key(rapid.Uint32().Draw(t, "lkey")), Addr: rapid.Uint64().Draw(t, "addr")})
	}
	w.Ctrl.DS = uint8(fixed + len(w.Data))
	return w
})

func TestSendWQEValueRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genSendWQE.Draw(t, "wqe")
		if ds, err := w.DS(); err != nil || ds != w.Ctrl.DS {
			t.Fatalf("DS = %d, %v; want %d", ds, err, w.Ctrl.DS)
		}
		p, err := prm.ParseSendWQE(w.Append(nil))
		if err != nil || !reflect.DeepEqual(p, w) {
			t.Fatalf("round trip\n %+v\n-> %+v, %v", w, p, err)
		}
	})
}

func TestCQEValueRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := prm.CQE{
			ImmInvalPKey: rapid.Uint32().Draw(t, "imm"),
			ByteCnt:      rapid.Uint32().Draw(t, "byte_cnt"),
			Timestamp:    rapid.Uint64().Draw(t, "timestamp"),
			SWQEOpcode:   prm.Opcode(rapid.Uint8().Draw(t, "s_wqe_opcode")),
			QPN:          rapid.Uint32Range(0, 0xffffff).Draw(t, "qpn"),
			WQECounter:   rapid.Uint16().Draw(t, "wqe_counter"),
			Signature:    rapid.Uint8().Draw(t, "signature"),
			Opcode:       rapid.SampledFrom([]prm.CQEOpcode{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15}).Draw(t, "opcode"),
			Format:       rapid.Uint8Range(0, 3).Draw(t, "format"),
			SE:           rapid.Bool().Draw(t, "se"),
			Owner:        rapid.Bool().Draw(t, "owner"),
		}
		copy(c.Misc[:], genBytes(t, len(c.Misc), "misc"))
		copy(c.App[:], genBytes(t, len(c.App), "app"))
		if p, err := prm.ParseCQE(c.Append(nil)); err != nil || p != c {
			t.Fatalf("round trip %+v -> %+v, %v", c, p, err)
		}
	})
}

func TestErrCQEValueRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := prm.ErrCQE{
			SRQN:          rapid.Uint32().Draw(t, "srqn"),
			VendorErrSynd: rapid.Uint8().Draw(t, "vendor_err_synd"),
			Syndrome:      prm.CQESyndrome(rapid.Uint8().Draw(t, "syndrome")),
			SWQEOpcode:    prm.Opcode(rapid.Uint8().Draw(t, "s_wqe_opcode")),
			QPN:           rapid.Uint32Range(0, 0xffffff).Draw(t, "qpn"),
			WQECounter:    rapid.Uint16().Draw(t, "wqe_counter"),
			Signature:     rapid.Uint8().Draw(t, "signature"),
			Opcode:        rapid.SampledFrom([]prm.CQEOpcode{prm.CQEReqErr, prm.CQERespErr}).Draw(t, "opcode"),
			Format:        rapid.Uint8Range(0, 3).Draw(t, "format"),
			SE:            rapid.Bool().Draw(t, "se"),
			Owner:         rapid.Bool().Draw(t, "owner"),
		}
		if p, err := prm.ParseErrCQE(c.Append(nil)); err != nil || p != c {
			t.Fatalf("round trip %+v -> %+v, %v", c, p, err)
		}
	})
}
