package prm

import (
	"bytes"
	"testing"
)

// TestAppendClearsReserved: Append writes a format's whole image after
// what b holds, reserved bits zero, whatever lies in b's spare capacity
// (a reused buffer), and leaves b's bytes as they were.
func TestAppendClearsReserved(t *testing.T) {
	for _, tc := range []struct {
		name   string
		size   int
		append func([]byte) []byte
	}{
		{"CQE", CQESize, (&CQE{ByteCnt: 7}).Append},
		{"error CQE", CQESize, (&ErrCQE{Syndrome: 1}).Append},
		{"KLM entry", KLMEntrySize, KLMEntry{ByteCount: 5, Address: 9}.Append},
		{"MKC", MKCSize, (&MKC{UMREn: true}).Append},
		{"MTT entry", MTTEntrySize, MTTEntry{PTag: 0x1000, RdEn: true}.Append},
		{"UMR control segment", UMRCtrlSize, UMRCtrl{Inline: true}.Append},
		{"WQE control segment", CtrlSegSize, CtrlSeg{DS: 3}.Append},
		{"remote address segment", RAddrSegSize, RAddrSeg{RAddr: 8}.Append},
		{"atomic segment", AtomicSegSize, AtomicSeg{SwapAdd: 1}.Append},
		{"data segment", DataSegSize, DataSeg{ByteCount: 4}.Append},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.append(nil)
			if len(want) != tc.size {
				t.Fatalf("%d bytes, want %d", len(want), tc.size)
			}
			dirty := bytes.Repeat([]byte{0xff}, 3+tc.size)
			got := tc.append(dirty[:3])
			if !bytes.Equal(got[:3], []byte{0xff, 0xff, 0xff}) || !bytes.Equal(got[3:], want) {
				t.Errorf("into a dirty buffer: % x, want ff ff ff then % x", got, want)
			}
		})
	}
}
