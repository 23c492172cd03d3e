package vcd

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// update rewrites testdata/golden from the writer's current output. The
// files pin the writer's bytes: regenerate them only for a change of the
// format that is meant, and review the diff.
var update = flag.Bool("update", false, "rewrite testdata/golden")

// goldenStream drives a writer through one representative stream.
type goldenStream struct {
	name string
	opt  Options
	run  func(w *Writer) // declares, Begins, changes; the test Closes
}

// goldenVars declares the variables of the golden streams under top: one
// of each kind the writer formats differently, and returns them.
func goldenVars(top *Scope) (bit, small, word, odd, wide *Var) {
	u := top.Scope("unit")
	return u.Var("valid", 1), u.Var("state", 3), u.Var("addr", 64),
		u.Scope("deep").Var("odd", 100), u.Var("mkc", 512)
}

// goldenChanges makes the changes of cycle c: a mix of setters, values
// with and without leading zeros, repeated and reverted values.
func goldenChanges(c uint64, bit, small, word, odd, wide *Var) {
	bit.SetBool(c%3 != 0)
	small.Set(c * 5) // bits above the width are dropped
	if c%4 != 1 {
		word.Set(c<<(c%64) | c)
	}
	odd.SetBits([]uint64{^c, c << 30})
	img := make([]byte, 64)
	img[0], img[63-int(c%64)] = byte(c), 0x80|byte(c)
	wide.SetBytes(img)
	if c%5 == 0 {
		small.Set(7)
		small.Set(c * 5) // back to the first value set in this cycle
	}
}

// goldenStreams covers the clock, every value kind, skipped cycles and the
// windows: starting on a visited cycle, jumped over, with and without an
// end, and a variable declared before the clock.
var goldenStreams = []goldenStream{
	{"clock", Options{TimescalePS: 4000, Clock: true, Version: "golden", Comment: "clock"}, func(w *Writer) {
		top := w.Root("top")
		w.Clock(top)
		bit, small, word, odd, wide := goldenVars(top)
		word.Set(0xdead) // initial value
		w.Begin()
		for _, c := range []uint64{0, 1, 2, 3, 7, 8, 15, 16, 17, 30, 31, 32, 33, 63, 64, 65, 127, 128, 129, 260} {
			w.At(c)
			goldenChanges(c, bit, small, word, odd, wide)
		}
	}},
	{"clock-window", Options{TimescalePS: 4000, Clock: true, From: 5, To: 12, Date: "today"}, func(w *Writer) {
		top := w.Root("top")
		w.Clock(top)
		bit, small, word, odd, wide := goldenVars(top)
		w.Begin()
		for _, c := range []uint64{0, 1, 3, 9, 10, 11, 14, 20} { // jumps over From
			w.At(c)
			goldenChanges(c, bit, small, word, odd, wide)
		}
	}},
	{"clock-window-on-visit", Options{TimescalePS: 1000, Clock: true, From: 4}, func(w *Writer) {
		top := w.Root("top")
		w.Clock(top)
		bit, small, word, odd, wide := goldenVars(top)
		w.Begin()
		for c := uint64(0); c < 12; c += 2 { // visits From
			w.At(c)
			goldenChanges(c, bit, small, word, odd, wide)
		}
	}},
	{"clock-after-vars", Options{TimescalePS: 2000, Clock: true, To: 40}, func(w *Writer) {
		top := w.Root("top")
		bit, small, word, odd, wide := goldenVars(top.Scope("first")) // before the clock
		clk, cycle := w.Clock(top)
		w.Begin()
		for _, c := range []uint64{1, 2, 5, 6, 9, 30, 50} {
			w.At(c)
			goldenChanges(c, bit, small, word, odd, wide)
			if c == 6 {
				clk.Set(0)     // the writer drives these: overridden
				cycle.Set(999) // at the next time step
			}
		}
	}},
	{"cycle-set-before-begin", Options{TimescalePS: 4000, Clock: true}, func(w *Writer) {
		top := w.Root("top")
		clk, cycle := w.Clock(top)
		clk.Set(0)
		cycle.Set(5)
		v := top.Var("v", 8)
		w.Begin()
		for _, c := range []uint64{0, 1, 4, 5, 6} {
			w.At(c)
			v.Set(c)
		}
	}},
	{"no-clock-window", Options{TimescalePS: 4000, From: 3, To: 9, Version: "v"}, func(w *Writer) {
		bit, small, word, odd, wide := goldenVars(w.Root("top"))
		w.Begin()
		for c := uint64(0); c < 14; c++ {
			w.At(c)
			goldenChanges(c, bit, small, word, odd, wide)
		}
	}},
	{"scope-filter", Options{TimescalePS: 4000, Clock: true, Scope: "top.unit.deep"}, func(w *Writer) {
		top := w.Root("top")
		w.Clock(top)
		bit, small, word, odd, wide := goldenVars(top) // all but odd are nil
		w.Begin()
		for c := uint64(0); c < 6; c++ {
			w.At(c)
			goldenChanges(c, bit, small, word, odd, wide)
		}
	}},
}

// TestGoldenStreams compares the writer's output for each golden stream
// with testdata/golden/NAME.vcd byte for byte, and the save file that
// shows its variables in hexadecimal, decimal and binary with
// testdata/golden/NAME.gtkw.
func TestGoldenStreams(t *testing.T) {
	for _, gs := range goldenStreams {
		t.Run(gs.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, gs.opt)
			gs.run(w)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			mustParse(t, buf.Bytes())
			var save bytes.Buffer
			if err := WriteGTKW(&save, goldenSave(w, gs.name)); err != nil {
				t.Fatal(err)
			}
			for _, f := range []struct {
				ext string
				got []byte
			}{{".vcd", buf.Bytes()}, {".gtkw", save.Bytes()}} {
				file := filepath.Join("testdata", "golden", gs.name+f.ext)
				if *update {
					if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, f.got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(f.got, want) {
					t.Errorf("%s differs from the writer's output:\n%s", file, f.got)
				}
			}
		})
	}
}

// goldenSave is the save file of a golden stream: every declared
// variable, in Hex, Dec and Bin in turn.
func goldenSave(w *Writer, name string) SaveFile {
	var sigs []Signal
	for i, v := range w.vars {
		sigs = append(sigs, Signal{Path: v.Path(), Width: v.Width(), Format: Format(i % 3)})
	}
	return SaveFile{DumpFile: name + ".vcd", Shown: 40, Groups: []Group{{Name: "all", Signals: sigs}}}
}

// limitWriter passes the first n bytes to w and then fails, to pin what a
// failing destination receives.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if len(p) > l.n {
		m, _ := l.w.Write(p[:l.n])
		l.n -= m
		return m, errors.New("limit")
	}
	l.n -= len(p)
	return l.w.Write(p)
}

// randomStream drives a writer with a stream drawn from seed: options,
// variables (1 to 300 bits, some of them before the clock), cycles
// visited with gaps, setters, sets of the clock's own variables, and
// misuse (time going backwards).
func randomStream(seed uint64, w io.Writer) string {
	r := rand.New(rand.NewPCG(seed, 7))
	periods := []uint64{1000, 4000, 2500, 3333, 10000}
	o := Options{TimescalePS: periods[r.IntN(len(periods))], Clock: r.IntN(4) != 0}
	if o.Clock && o.TimescalePS == 3333 {
		o.TimescalePS = 3334
	}
	if r.IntN(2) == 0 {
		o.From = uint64(r.IntN(200))
	}
	if r.IntN(2) == 0 {
		o.To = o.From + uint64(r.IntN(400))
	}
	wr := NewWriter(w, o)
	top := wr.Root("top")
	var vars []*Var
	declare := func(n int) {
		for range n {
			width := 1 + r.IntN(64)
			switch r.IntN(6) {
			case 0:
				width = 1
			case 1:
				width = 65 + r.IntN(236)
			}
			vars = append(vars, top.Scope(fmt.Sprint("s", r.IntN(5))).Var("v", width))
		}
	}
	declare(r.IntN(3))
	if o.Clock {
		clk, cycle := wr.Clock(top)
		if r.IntN(3) == 0 {
			vars = append(vars, clk, cycle)
		}
	}
	declare(1 + r.IntN(150))
	for _, v := range vars {
		if r.IntN(3) == 0 {
			v.Set(r.Uint64())
		}
	}
	wr.Begin()
	cycles := 1 + r.IntN(3000)
	misuse := r.IntN(3) == 0
	var c uint64
	for range cycles {
		switch k := r.IntN(20); {
		case k == 0:
			c += uint64(r.IntN(300))
		case k == 1 && misuse && c > 3:
			wr.At(c - 3) // backwards: an error, ignored
		case k < 8:
			c += 1 + uint64(r.IntN(3))
		default:
			c++
		}
		wr.At(c)
		for range r.IntN(2 * len(vars)) {
			v := vars[r.IntN(len(vars))]
			x := r.Uint64() >> uint(r.IntN(64))
			switch r.IntN(5) {
			case 0:
				v.SetBits([]uint64{x, r.Uint64(), r.Uint64() >> uint(r.IntN(64)), r.Uint64()}[:r.IntN(5)])
			case 1:
				b := make([]byte, r.IntN(48))
				for i := range b {
					b[i] = byte(r.Uint32())
				}
				v.SetBytes(b)
			case 2:
				v.SetBool(x&1 == 1)
			default:
				v.Set(x)
			}
		}
	}
	err := wr.Close()
	return fmt.Sprint(err)
}

// TestPinnedRandomStreams pins the exact bytes (their SHA-256) of random
// streams, some to a destination that fails after a number of bytes, so
// that any change of the writer's output, even in corners no hand-written
// stream reaches, is seen.
func TestPinnedRandomStreams(t *testing.T) {
	for _, tc := range pinnedStreams {
		t.Run(fmt.Sprint(tc.seed, "/", tc.limit), func(t *testing.T) {
			var buf bytes.Buffer
			var dst io.Writer = &buf
			if tc.limit > 0 {
				dst = &limitWriter{w: &buf, n: tc.limit}
			}
			errText := randomStream(tc.seed, dst)
			sum := sha256.Sum256(buf.Bytes())
			got := fmt.Sprintf("%x", sum[:8])
			if *update {
				t.Logf("{%d, %d, %d, %q, %q},", tc.seed, tc.limit, buf.Len(), got, errText)
				return
			}
			if buf.Len() != tc.size || got != tc.sha || errText != tc.err {
				t.Errorf("seed %d: %d bytes, sha256 %s, error %q; want %d, %s, %q", tc.seed, buf.Len(), got, errText, tc.size, tc.sha, tc.err)
			}
		})
	}
}

// pinnedStreams are the random streams TestPinnedRandomStreams checks,
// with the size, the start of the SHA-256 and the Close error of their
// output (run the test with -update -v to print new rows).
var pinnedStreams = []struct {
	seed  uint64
	limit int // fail after this many bytes (0: never)
	size  int
	sha   string
	err   string
}{
	{1, 0, 7194, "09637d8f0e1a1ad5", "<nil>"},
	{2, 0, 21392, "616a2fb64f01b375", "vcd: time went backwards: At(344) after At(347)"},
	{3, 0, 986679, "a14775b6f2f02c4f", "<nil>"},
	{4, 0, 2567690, "f1d4032c1d68cf6e", "vcd: time went backwards: At(33) after At(36)"},
	{5, 0, 3462434, "3baf424225d4570e", "<nil>"},
	{6, 0, 14075, "242129eb1ca0e6d0", "<nil>"},
	{7, 0, 1946023, "5b90a8678bb9886b", "<nil>"},
	{8, 0, 4578860, "499df5470cffb595", "<nil>"},
	{9, 0, 4217160, "a780fb8f60d50131", "<nil>"},
	{10, 0, 2889948, "42f800268202084c", "<nil>"},
	{11, 0, 2917394, "6edddd6c145dde49", "<nil>"},
	{12, 0, 15605, "2432ef06e34c828a", "vcd: time went backwards: At(827) after At(830)"},
	{13, 0, 1410424, "c2a4c200e031bf06", "<nil>"},
	{14, 0, 972839, "50763c0e74ace2d9", "vcd: time went backwards: At(3) after At(6)"},
	{15, 0, 98488, "f10ef230da87883f", "vcd: time went backwards: At(18) after At(21)"},
	{16, 0, 3056491, "26370ca517d6cfb3", "vcd: time went backwards: At(1) after At(4)"},
	{17, 0, 450340, "d11f69edc839920c", "vcd: time went backwards: At(343) after At(346)"},
	{18, 0, 5488, "3ea156cc658bc103", "<nil>"},
	{19, 0, 58064, "6a6537e35f18550e", "<nil>"},
	{20, 0, 624819, "0fbb3a161091095c", "vcd: time went backwards: At(235) after At(238)"},
	{21, 0, 1394760, "949aa3e50ce225a7", "vcd: time went backwards: At(1) after At(4)"},
	{22, 0, 3415877, "7fc298d229c483c4", "<nil>"},
	{23, 0, 103176, "74cc9cc75f864ec8", "vcd: time went backwards: At(156) after At(159)"},
	{24, 0, 3391197, "952f74da9b6db1ca", "<nil>"},
	{3, 1000, 1000, "c270e03bc03d4d05", "vcd: write: limit"},
	{5, 65536, 65536, "402750e585feab25", "vcd: write: limit"},
	{7, 70000, 70000, "c79c0a9b9e56cb91", "vcd: write: limit"},
	{11, 140000, 140000, "b715105b18613c3f", "vcd: write: limit"},
	{13, 200000, 200000, "9632eb365b071317", "vcd: write: limit"},
}

// callWriter records the size of every Write and fails from call failAt
// on (1-based; 0 never).
type callWriter struct {
	sizes  []int
	failAt int
}

func (c *callWriter) Write(p []byte) (int, error) {
	c.sizes = append(c.sizes, len(p))
	if c.failAt > 0 && len(c.sizes) >= c.failAt {
		return 0, errors.New("fail")
	}
	return len(p), nil
}

// TestWriteChunks: the destination gets the text in Write calls of 64 KiB
// and a last shorter one, as through the bufio.Writer the writer used to
// have, and no call after one fails.
func TestWriteChunks(t *testing.T) {
	var all bytes.Buffer
	randomStream(5, &all) // about 3 MB
	for _, tc := range []struct {
		failAt int
		calls  int
	}{
		{0, all.Len()/chunkSize + 1},
		{1, 1},
		{3, 3},
	} {
		cw := &callWriter{failAt: tc.failAt}
		errText := randomStream(5, cw)
		if len(cw.sizes) != tc.calls {
			t.Errorf("fail at %d: %d Write calls, want %d", tc.failAt, len(cw.sizes), tc.calls)
		}
		for i, n := range cw.sizes {
			if n != chunkSize && !(i == len(cw.sizes)-1 && tc.failAt == 0 && n == all.Len()%chunkSize) {
				t.Errorf("fail at %d: Write %d of %d bytes", tc.failAt, i, n)
			}
		}
		if tc.failAt > 0 && errText != "vcd: write: fail" {
			t.Errorf("fail at %d: Close error %q", tc.failAt, errText)
		}
	}
}
