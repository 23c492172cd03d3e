package wire

import (
	"testing"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// TestResponderParsesRequester: the operations the responder parses from
// the requester's packets are the operations sent, on random remote
// operations (fixed seed), and the answers are what the InfiniBand
// specification gives each outcome.
func TestResponderParsesRequester(t *testing.T) {
	req, resp := NewRequester(), NewResponder()
	types := []prm.AccessType{prm.RemoteRead, prm.RemoteWrite, prm.RemoteAtomic}
	lens := []uint32{0, 1, 8, 4095, 4096, 4097, 3 * 4096, MaxMessage}
	for i := 0; i < 300; i++ {
		op := scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: uint32(i % 5), Key: prm.Key(0x1000 + i*257),
			Addr: uint64(i) * 0x123456789, Len: lens[i%len(lens)], Type: types[i%3]}}
		if op.Access.Type == prm.RemoteAtomic {
			op.Access.Len = 8
		}
		if i%7 == 0 {
			op = scenario.Op{Kind: scenario.OpSendWithInvalidate, QPN: uint32(i % 5), Key: prm.Key(0xabc00 + i)}
		}
		frames, err := req.Send(&op)
		if err != nil {
			t.Fatalf("op %d %+v: %v", i, op, err)
		}
		var got *Message
		for k, f := range frames {
			s, err := Decode(f)
			if err != nil || !s.ICRCOK {
				t.Fatalf("op %d frame %d: %v", i, k, err)
			}
			m, err := resp.Receive(s)
			if err != nil {
				t.Fatalf("op %d frame %d: %v", i, k, err)
			}
			if m != nil {
				if got != nil {
					t.Fatalf("op %d: a second message at frame %d", i, k)
				}
				got = m
			}
		}
		if got == nil || got.Op.Kind != op.Kind || got.Op.Access != op.Access || got.Op.QPN != op.QPN || got.Op.Key != op.Key {
			t.Fatalf("op %d: sent %+v, parsed %+v", i, op, got)
		}
		for _, c := range []struct {
			st   prm.Status
			want Syndrome
		}{
			{prm.PageFault, RNRNAK(rnrTimer)},
			{prm.KeyMismatch, NAK(NAKFor(op.Kind, prm.KeyMismatch))},
			{prm.OK, ACK(credits)},
		} {
			frames, err := resp.Answer(got, &scenario.Result{Status: c.st})
			if err != nil {
				t.Fatal(err)
			}
			s, err := Decode(frames[0])
			if err != nil {
				t.Fatal(err)
			}
			if s.Syndrome != c.want || s.DestQP != got.Op.Access.QPN^peerQPFlip && s.DestQP != got.Op.QPN^peerQPFlip {
				t.Fatalf("op %d, %v: answer %+v, want syndrome %v", i, c.st, s.Packet, c.want)
			}
		}
	}
}

// TestNAKFor: the NAK each failure gets (docs/md).
func TestNAKFor(t *testing.T) {
	for _, c := range []struct {
		k    scenario.OpKind
		st   prm.Status
		want NAKCode
	}{
		{scenario.OpAccess, prm.BadKeyIndex, NAKRemoteAccessError},
		{scenario.OpAccess, prm.KeyMismatch, NAKRemoteAccessError},
		{scenario.OpAccess, prm.AccessDenied, NAKRemoteAccessError},
		{scenario.OpAccess, prm.OutOfRange, NAKRemoteAccessError},
		{scenario.OpAccess, prm.PageAccess, NAKRemoteAccessError},
		{scenario.OpAccess, prm.MisalignedAtomic, NAKInvalidRequest},
		{scenario.OpAccess, prm.BadParam, NAKRemoteOperationalError},
		{scenario.OpSendWithInvalidate, prm.RemoteInvalidateDenied, NAKInvalidRequest},
		{scenario.OpSendWithInvalidate, prm.KeyMismatch, NAKInvalidRequest},
	} {
		if got := NAKFor(c.k, c.st); got != c.want {
			t.Errorf("%v %v: %v, want %v", c.k, c.st, got, c.want)
		}
	}
}
