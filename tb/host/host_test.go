package host

import (
	"encoding/binary"
	"strings"
	"testing"

	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/rtl/pcie"
	"mkeysim/scenario"
)

// TestPost: each operation a WQE carries is in its QP's send queue at the
// producer counter, as prm parses it back, and its doorbell is the first
// 8 bytes of its control segment to the doorbell register; a WQE that
// would run past the queue's end is put at its start, after NOPs.
func TestPost(t *testing.T) {
	mem := pcie.NewMemory()
	h := New(mem)
	read := scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 3, Key: 0x1234, Addr: 0x5000, Len: 77, Type: prm.LocalRead}}
	inval := scenario.Op{Kind: scenario.OpLocalInvalidate, QPN: 3, Key: 0x4401}
	umr := scenario.Op{Kind: scenario.OpUMR, UMR: &scenario.UMR{QPN: 3, Key: 0x4401, Mask: prm.MaskAccessMode,
		Image: prm.MKC{AccessMode: prm.ModeMTT}, MTT: make([]prm.MTTEntry, 20)}} // 160 bytes: a pointer
	for _, op := range []*scenario.Op{&read, &inval, &umr} {
		if !Carries(op) {
			t.Fatalf("%v not carried", op.Kind)
		}
	}
	seq := 0
	post := func(op *scenario.Op) (uint16, pcie.TLP) {
		t.Helper()
		pi := h.pi[3]
		db, err := h.Post(seq, op)
		if err != nil {
			t.Fatal(err)
		}
		seq++
		if db.Type != pcie.MWr || db.Addr != rtl.DoorbellAddr || len(db.Data) != 8 {
			t.Fatalf("doorbell %+v", db)
		}
		return pi, db
	}
	at, db := post(&read)
	b := make([]byte, 64)
	mem.Read(rtl.SQSlotAddr(3, at), b)
	w, err := prm.ParseSendWQE(b[:32]) // ctrl and one data segment
	if err != nil || w.Ctrl.Opcode != prm.OpSend || w.Data[0] != (prm.DataSeg{ByteCount: 77, LKey: 0x1234, Addr: 0x5000}) || string(db.Data) != string(b[:8]) {
		t.Fatalf("SEND %+v (%v)", w, err)
	}
	at, _ = post(&inval)
	b = make([]byte, 128)
	mem.Read(rtl.SQSlotAddr(3, at), b)
	if li, err := prm.ParseLocalInvWQE(b); err != nil || li.Key() != 0x4401 || li.Ctrl.Fence != prm.FenceStrongOrdering {
		t.Fatalf("local invalidate %+v (%v)", li, err)
	}
	// Fill the queue to 2 basic blocks before its end: the UMR (3 basic
	// blocks with its pointer) goes to the start after 2 NOPs.
	h.pi[3] = rtl.SQRing - 2
	at, _ = post(&umr)
	if at != rtl.SQRing-2 || h.NOPs != 2 || h.pi[3] != rtl.SQRing+3 {
		t.Fatalf("UMR at %d, %d NOPs, producer counter %d", at, h.NOPs, h.pi[3])
	}
	b = make([]byte, 144)
	mem.Read(rtl.SQSlotAddr(3, rtl.SQRing), b)
	u, err := prm.ParseUMRWQE(b)
	if err != nil || u.UMR.Inline || u.Pointer.Addr%prm.UMRPointerAlign != 0 || u.Pointer.ByteCount != 192 {
		t.Fatalf("UMR %+v (%v)", u, err)
	}
	list := make([]byte, 192)
	mem.Read(u.Pointer.Addr, list)
	if string(list) != string(prm.MTTList(umr.UMR.MTT)) {
		t.Fatal("the list behind the pointer is not the UMR's")
	}
	if idx := binary.BigEndian.Uint32(b[:4]) >> 8 & 0xffff; idx != rtl.SQRing {
		t.Fatalf("WQE index %d", idx)
	}
}

// TestCarries: what a WQE cannot say goes directly.
func TestCarries(t *testing.T) {
	for _, c := range []struct {
		op   scenario.Op
		want bool
	}{
		{scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{Len: 1 << 31, Type: prm.LocalRead}}, false},
		{scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{Len: 8, Type: prm.RemoteRead}}, false},
		{scenario.Op{Kind: scenario.OpQueryMKey}, false},
		{scenario.Op{Kind: scenario.OpUMR, UMR: &scenario.UMR{MTT: make([]prm.MTTEntry, 2)}}, false}, // no access mode in the mask
		{scenario.Op{Kind: scenario.OpUMR, UMR: &scenario.UMR{Mask: prm.MaskAccessMode, Image: prm.MKC{AccessMode: prm.ModeKLM}, MTT: make([]prm.MTTEntry, 2)}}, false},
		{scenario.Op{Kind: scenario.OpUMR, UMR: &scenario.UMR{Mask: prm.MaskFree, Image: prm.MKC{Free: true}}}, false}, // a local invalidate
		{scenario.Op{Kind: scenario.OpUMR, UMR: &scenario.UMR{Mask: prm.MaskFree | prm.MaskPD, Image: prm.MKC{Free: true}}}, true},
	} {
		if got := Carries(&c.op); got != c.want {
			t.Errorf("%+v: %v, want %v", c.op, got, c.want)
		}
	}
}

// TestCheckCQEs: a missing, wrong or extra CQE is an error naming the QP
// and the CQE; a CQE of the wrong pass (its owner bit) is not there yet.
func TestCheckCQEs(t *testing.T) {
	mem := pcie.NewMemory()
	h := New(mem)
	op := scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 9, Key: 1, Addr: 2, Len: 3, Type: prm.LocalRead}}
	if _, err := h.Post(0, &op); err != nil {
		t.Fatal(err)
	}
	h.Result(&scenario.Result{Seq: 0, Op: scenario.OpAccess, Status: prm.KeyMismatch})
	if err := h.CheckCQEs(); err == nil || !strings.Contains(err.Error(), "QP 0x9 CQE 0") {
		t.Fatalf("no CQE written: %v", err)
	}
	cqe := prm.ErrCQE{Syndrome: rtl.CQESyndrome(prm.OpSend, prm.KeyMismatch), VendorErrSynd: uint8(prm.KeyMismatch), SWQEOpcode: prm.OpSend,
		QPN: 9, Opcode: prm.CQEReqErr}
	stale := cqe
	stale.Owner = true // the previous pass's
	mem.Write(rtl.CQEAddr(9, 0), stale.Append(nil))
	if err := h.CheckCQEs(); err == nil || !strings.Contains(err.Error(), "not written") {
		t.Fatalf("a stale CQE: %v", err)
	}
	wrong := cqe
	wrong.WQECounter = 5
	mem.Write(rtl.CQEAddr(9, 0), wrong.Append(nil))
	if err := h.CheckCQEs(); err == nil || !strings.Contains(err.Error(), "want a REQ_ERR") {
		t.Fatalf("a wrong CQE: %v", err)
	}
	mem.Write(rtl.CQEAddr(9, 0), cqe.Append(nil))
	if err := h.CheckCQEs(); h.CQEs != 1 || h.ErrorCQEs != 1 || err != nil {
		t.Fatalf("%d %d %v", h.CQEs, h.ErrorCQEs, err)
	}
	// A checked CQE's work request is not kept (a long run keeps those in
	// flight), and the next one is CQE 1.
	if q := h.cqs[9]; len(q.ends) != 0 || q.first != 1 || h.Ended() != 1 {
		t.Fatalf("after CQE 0: %d work requests kept, first %d, %d ended; want 0, 1, 1", len(q.ends), q.first, h.Ended())
	}
	if _, err := h.Post(1, &op); err != nil {
		t.Fatal(err)
	}
	h.Result(&scenario.Result{Seq: 1, Op: scenario.OpAccess, Status: prm.KeyMismatch})
	next := cqe
	next.WQECounter = 1
	mem.Write(rtl.CQEAddr(9, 1), next.Append(nil))
	if err := h.CheckCQEs(); h.CQEs != 2 || err != nil || h.Ended() != 2 {
		t.Fatalf("CQE 1: %d checked, %d ended, %v", h.CQEs, h.Ended(), err)
	}
	// A right CQE before a wrong one in the same poll is checked once.
	for seq := 2; seq <= 3; seq++ {
		if _, err := h.Post(seq, &op); err != nil {
			t.Fatal(err)
		}
		h.Result(&scenario.Result{Seq: seq, Op: scenario.OpAccess, Status: prm.KeyMismatch})
	}
	right, bad := cqe, cqe
	right.WQECounter, bad.WQECounter = 2, 9
	mem.Write(rtl.CQEAddr(9, 2), right.Append(nil))
	mem.Write(rtl.CQEAddr(9, 3), bad.Append(nil))
	if err := h.CheckCQEs(); err == nil || !strings.Contains(err.Error(), "CQE 3") || h.CQEs != 3 {
		t.Fatalf("CQE 2 right, CQE 3 wrong: %d checked, %v", h.CQEs, err)
	}
	right.WQECounter = 3
	mem.Write(rtl.CQEAddr(9, 3), right.Append(nil))
	if err := h.CheckCQEs(); err != nil || h.CQEs != 4 {
		t.Fatalf("CQE 3 rewritten: %d checked, want 4; %v", h.CQEs, err)
	}
	mem.Write(rtl.CQEAddr(9, 4), cqe.Append(nil))
	if err := h.CheckCQEs(); err == nil || !strings.Contains(err.Error(), "a CQE after the 4") {
		t.Fatalf("an extra CQE: %v", err)
	}
}
