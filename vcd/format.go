package vcd

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// The text of value changes and time lines. A value line is "1!" for a
// scalar and "b1011 !" for a vector (no leading zeros); a time line is
// "#1234". The writer formats them straight into its buffer with 8-byte
// stores, which may run past the end of the line (the next line
// overwrites them; the buffer's slack holds them, buffer.go):
//
//   - a variable keeps its line's end (" !\n", or "0!\n" for a scalar,
//     whose value then only turns '0' into '1') packed in a word, made
//     once when it is declared;
//   - binary digits come eight at a time from digitTable, the count of
//     digits from bits.Len64;
//   - decimal time digits come eight at a time from eightDigits.
//
// Profiles of the default run's stream ruled out two other ideas: keeping
// the text of the clock's cycle counter and of the last time line to
// update it digit by digit (a store per digit, then 8-byte loads of those
// bytes, which the processor cannot forward from the narrower stores, is
// slower than formatting anew), and strconv.AppendUint for time lines
// (two digits a step, with a division and a loop, against eightDigits'
// handful of multiplications).

// varKind says how a variable's value is stored and formatted.
type varKind uint8

const (
	// kindGeneric: any width, the value in varDecl.cur and varDecl.last,
	// the line built by append. The kind of variables wider than 64 bits,
	// and of those whose line end does not fit in a word (identifier codes
	// of more than 6 characters, past 94^6 variables).
	kindGeneric varKind = iota
	// kindBit: one bit, in Var.word, the line one 8-byte store.
	kindBit
	// kindWord: 2 to 64 bits, in Var.word.
	kindWord
)

// wordLineRoom is the room a value line of up to 64 bits needs past the
// end of the buffer: "b", 64 digits and an 8-byte store of the line's end.
const wordLineRoom = 1 + 64 + 8

// packTail packs the bytes of s (at most 8) into a word, s[0] in the low
// byte, so that a little-endian store writes s.
func packTail(s string) uint64 {
	var x uint64
	for i := len(s) - 1; i >= 0; i-- {
		x = x<<8 | uint64(s[i])
	}
	return x
}

// appendValue appends the value line of v's current value.
func (w *Writer) appendValue(b []byte, v *Var) []byte {
	if v.kind != kindGeneric {
		n := len(b)
		if cap(b)-n < wordLineRoom {
			b = slices.Grow(b, wordLineRoom)
		}
		return b[:n+putLine(lineAt(b, n), v, v.word[0])]
	}
	d := v.d
	if d.width == 1 {
		b = append(b, byte('0'+d.cur[0]&1))
	} else {
		b = append(b, 'b')
		b = appendBinary(b, d.cur)
		b = append(b, ' ')
	}
	b = append(b, d.id...)
	return append(b, '\n')
}

// lineAt returns the room for a line at b[n:], which the capacity of b
// must hold.
func lineAt(b []byte, n int) *[wordLineRoom]byte {
	return (*[wordLineRoom]byte)(b[n : n+wordLineRoom])
}

// putLine writes the value line of x, the value of v (not kindGeneric), at
// p and returns its length.
func putLine(p *[wordLineRoom]byte, v *Var, x uint64) int {
	if v.kind == kindBit {
		// tail is "0" id "\n": the value turns '0' into '1'.
		binary.LittleEndian.PutUint64(p[:8], v.tail+x)
		return int(v.tailLen)
	}
	return putWordLine(p, x, v.tail, int(v.tailLen))
}

// putWordLine writes "b", the binary digits of x without leading zeros
// and the line end packed in tail (tailLen bytes, at most 8) at p, and
// returns the line's length.
func putWordLine(p *[wordLineRoom]byte, x, tail uint64, tailLen int) int {
	l := bits.Len64(x | 1) // digits: at least one ("0")
	top := (l - 1) >> 3    // whole bytes below the top one: 0..7
	r := l - top<<3        // digits of the top byte: 1..8
	p[0] = 'b'
	binary.LittleEndian.PutUint64(p[1:9], digitTable[byte(x>>(uint(top<<3)&63))]>>(uint(64-r<<3)&63))
	i := 1 + r
	for k := top - 1; k >= 0; k-- {
		binary.LittleEndian.PutUint64(p[i:i+8], digitTable[byte(x>>(uint(k<<3)&63))])
		i += 8
	}
	binary.LittleEndian.PutUint64(p[i:i+8], tail)
	return i + tailLen
}

// appendWordLine appends the line putWordLine writes.
func appendWordLine(b []byte, x, tail uint64, tailLen int) []byte {
	n := len(b)
	if cap(b)-n < wordLineRoom {
		b = slices.Grow(b, wordLineRoom)
	}
	return b[:n+putWordLine(lineAt(b, n), x, tail, tailLen)]
}

// timeLineRoom is the room appendTimeLine needs past the end of the
// buffer: "#", 20 digits, "\n" and the spare bytes of an 8-byte store.
const timeLineRoom = 1 + 20 + 1 + 8

// appendTimeLine appends the time line "#u\n", eight digits at a time
// (eightDigits) rather than strconv's two.
func appendTimeLine(b []byte, u uint64) []byte {
	if cap(b)-len(b) < timeLineRoom {
		b = slices.Grow(b, timeLineRoom)
	}
	n := len(b)
	b = b[:n+timeLineRoom]
	b[n] = '#'
	n++
	// u < 10^20: at most 4, 8 and 8 digits.
	lo := u % 1e8
	if hi := u / 1e8; hi == 0 {
		n = putLeading(b, n, eightDigits(lo))
	} else {
		if top := hi / 1e8; top == 0 {
			n = putLeading(b, n, eightDigits(hi))
		} else {
			n = putLeading(b, n, eightDigits(top))
			binary.LittleEndian.PutUint64(b[n:], eightDigits(hi%1e8))
			n += 8
		}
		binary.LittleEndian.PutUint64(b[n:], eightDigits(lo))
		n += 8
	}
	b[n] = '\n'
	return b[:n+1]
}

// putLeading stores the eight digits d (as eightDigits packs them) at
// b[n:] without their leading zeros, keeping at least one digit, and
// returns the index past them.
func putLeading(b []byte, n int, d uint64) int {
	zeros := bits.TrailingZeros64((d^0x3030303030303030)|1<<56) / 8
	binary.LittleEndian.PutUint64(b[n:], d>>uint(8*zeros))
	return n + 8 - zeros
}

// eightDigits returns the eight decimal digits of x < 10^8, leading zeros
// included, as ASCII packed for a little-endian store (the most
// significant digit in the low byte). It splits x into two halves of four
// digits, each half into two of two, each of those into two digits, all
// lanes at once, dividing by 100 and 10 with multiplications that are
// exact in the lanes' ranges (x*5243>>19 is x/100 below 43699, x*103>>10
// is x/10 below 179).
func eightDigits(x uint64) uint64 {
	v := x/10000 | x%10000<<32
	q := v * 5243 >> 19 & 0x0000007f0000007f
	v = q | (v-q*100)<<16
	q = v * 103 >> 10 & 0x000f000f000f000f
	v = q | (v-q*10)<<8
	return v | 0x3030303030303030
}

// appendBinary appends the little-endian words as binary digits, most
// significant first, without leading zeros ("0" for zero): the top word as
// putWordLine writes it, then every lower word in full, eight digits a
// byte.
func appendBinary(b []byte, words []uint64) []byte {
	hi := len(words) - 1
	for hi > 0 && words[hi] == 0 {
		hi--
	}
	n := len(b)
	if need := 64*len(words) + 8; cap(b)-n < need {
		b = slices.Grow(b, need)
	}
	b = b[:n+64*(hi+1)+8]
	x := words[hi]
	l := bits.Len64(x | 1)
	top := (l - 1) >> 3
	r := l - top<<3
	binary.LittleEndian.PutUint64(b[n:], digitTable[byte(x>>(uint(top<<3)&63))]>>(uint(64-r<<3)&63))
	n += r
	for k := top - 1; k >= 0; k-- {
		binary.LittleEndian.PutUint64(b[n:], digitTable[byte(x>>(uint(k<<3)&63))])
		n += 8
	}
	for i := hi - 1; i >= 0; i-- {
		x := words[i]
		for k := 7; k >= 0; k-- {
			binary.LittleEndian.PutUint64(b[n:], digitTable[byte(x>>uint(k<<3))])
			n += 8
		}
	}
	return b[:n]
}

// digitTable holds, for each byte, its eight binary digits packed for a
// little-endian store: a load instead of byteDigits's arithmetic and a
// byte swap. It is computed once and never written again.
var digitTable = func() (t [256]uint64) {
	for c := range t {
		t[c] = bits.ReverseBytes64(byteDigits(byte(c)))
	}
	return t
}()

// byteDigits returns the eight binary digits of c as ASCII bytes packed
// big-endian in a word ('0'+bit7 in the top byte): c is copied into every
// byte, each byte keeps its own bit (byte k bit k), adding 0x7f carries a
// set bit into bit 7 without crossing bytes, and bit 7 is moved to bit 0.
func byteDigits(c byte) uint64 {
	y := uint64(c) * 0x0101010101010101 & 0x8040201008040201
	return (y+0x7f7f7f7f7f7f7f7f)>>7&0x0101010101010101 | 0x3030303030303030
}
