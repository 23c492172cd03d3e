package wire

import (
	"reflect"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// TestRegistry checks what init registered: the names, the UDP port and
// the decoders of layers met on their own.
func TestRegistry(t *testing.T) {
	for _, tt := range []struct {
		t    gopacket.LayerType
		num  int
		name string
	}{
		{LayerTypeBTH, 1791, "BTH"}, {LayerTypeRETH, 1792, "RETH"}, {LayerTypeAtomicETH, 1793, "AtomicETH"},
		{LayerTypeImmDt, 1794, "ImmDt"}, {LayerTypeIETH, 1795, "IETH"}, {LayerTypeAETH, 1796, "AETH"},
		{LayerTypeAtomicAckETH, 1797, "AtomicAckETH"}, {LayerTypeICRC, 1798, "ICRC"},
	} {
		if int(tt.t) != tt.num || tt.t.String() != tt.name {
			t.Errorf("layer type %d is %q, want %d %q", int(tt.t), tt.t, tt.num, tt.name)
		}
	}
	if got := layers.UDPPort(4791).LayerType(); got != LayerTypeBTH {
		t.Errorf("UDP port 4791 leads to %v, want BTH", got)
	}
	for _, tt := range []struct {
		first gopacket.LayerType
		data  string
		want  []gopacket.LayerType
	}{
		{LayerTypeRETH, "0123456789abcdef fedcba98 00001000 aabb", []gopacket.LayerType{LayerTypeRETH, gopacket.LayerTypePayload}},
		{LayerTypeAETH, "62 000001", []gopacket.LayerType{LayerTypeAETH}},
		{LayerTypeICRC, "82fd002a 0000", []gopacket.LayerType{LayerTypeICRC}},
		{LayerTypeIETH, "12", []gopacket.LayerType{gopacket.LayerTypeDecodeFailure}},
	} {
		pkt := gopacket.NewPacket(unhex(t, tt.data), tt.first, gopacket.Default)
		var got []gopacket.LayerType
		for _, l := range pkt.Layers() {
			got = append(got, l.LayerType())
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("NewPacket(%s, %v) layers %v, want %v", tt.data, tt.first, got, tt.want)
		}
	}
}
