package scenario_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// pageMem is a sparse memory of 4 KB pages for the tests: a map, as the
// clocked model's ICM.
type pageMem map[uint64]*[scenario.SnapshotPageSize]byte

func (m pageMem) Read(a uint64, b []byte) {
	for i := range b {
		x := a + uint64(i)
		if p := m[x/scenario.SnapshotPageSize]; p != nil {
			b[i] = p[x%scenario.SnapshotPageSize]
		} else {
			b[i] = 0
		}
	}
}

func (m pageMem) Write(a uint64, b []byte) {
	for i, c := range b {
		x := a + uint64(i)
		p := m[x/scenario.SnapshotPageSize]
		if p == nil {
			p = new([scenario.SnapshotPageSize]byte)
			m[x/scenario.SnapshotPageSize] = p
		}
		p[x%scenario.SnapshotPageSize] = c
	}
}

func (m pageMem) PresentPages(lo, hi uint64) []uint64 {
	var out []uint64
	for p := range m {
		if p >= lo && p < hi {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// capped is a writer that fails once it has taken limit bytes.
type capped struct {
	n, limit int64
}

var errFull = errors.New("capped writer: full")

func (w *capped) Write(b []byte) (int, error) {
	if w.n+int64(len(b)) > w.limit {
		k := w.limit - w.n
		w.n = w.limit
		return int(k), errFull
	}
	w.n += int64(len(b))
	return len(b), nil
}

// TestSnapshotListEntries: every entry of a snapshot reads as the memory
// held it when the snapshot was taken, for lists that start inside a page,
// whose entries straddle pages, that wrap at 2^64, and with holes; later
// writes do not show.
func TestSnapshotListEntries(t *testing.T) {
	cases := []struct {
		name  string
		kind  scenario.ListKind
		addr  uint64
		count uint64
	}{
		{"mtt aligned", scenario.ListMTT, 0x1_0000_0000, 2048},
		{"mtt mid-page", scenario.ListMTT, 0x1_0000_0fc0, 1500},
		{"klm straddling pages", scenario.ListKLM, 0x2_0000_0ff8, 700},
		{"klm wrapping at 2^64", scenario.ListKLM, 1<<64 - 3*4096 - 8, 1000},
		{"mtt one entry", scenario.ListMTT, 0x5000, 1},
		{"empty", scenario.ListKLM, 0x5000, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := pageMem{}
			size := c.kind.EntrySize()
			n := c.count * size
			// Write a pattern into every other page the list touches, and
			// a byte just outside each end, which must not show.
			mem.Write(c.addr-1, []byte{0xee})
			mem.Write(c.addr+n, []byte{0xee})
			for off := uint64(0); off < n; off += 8192 {
				b := make([]byte, min(4096, n-off))
				for i := range b {
					b[i] = byte(off + uint64(i)*7 + 1)
				}
				mem.Write(c.addr+off, b)
			}
			want := make([]byte, n)
			mem.Read(c.addr, want)
			l := scenario.SnapshotList(mem, c.kind, c.addr, c.count)
			mem.Write(c.addr, bytes.Repeat([]byte{0x55}, int(min(n, 10000))))
			if l.Len() != c.count || l.Kind() != c.kind {
				t.Fatalf("len %d kind %v, want %d %v", l.Len(), l.Kind(), c.count, c.kind)
			}
			for i := range c.count {
				raw := want[i*size : (i+1)*size]
				if c.kind == scenario.ListMTT {
					if got, w := l.MTT(i), prm.DecodeMTTEntry(raw); got != w {
						t.Fatalf("mtt[%d] = %+v, want %+v", i, got, w)
					}
				} else if got, w := l.KLM(i), prm.DecodeKLMEntry(raw); got != w {
					t.Fatalf("klm[%d] = %+v, want %+v", i, got, w)
				}
			}
			// The streamed line holds the same entries as the in-memory list.
			var mine *scenario.List
			if c.kind == scenario.ListMTT {
				e := make([]prm.MTTEntry, c.count)
				for i := range e {
					e[i] = prm.DecodeMTTEntry(want[uint64(i)*size:])
				}
				mine = scenario.NewMTTList(e)
			} else {
				e := make([]prm.KLMEntry, c.count)
				for i := range e {
					e[i] = prm.DecodeKLMEntry(want[uint64(i)*size:])
				}
				mine = scenario.NewKLMList(e)
			}
			if d := scenario.DiffList(l, mine); d != "" {
				t.Fatal(d)
			}
			a := scenario.Result{Op: scenario.OpQueryMKey, List: l}
			b := scenario.Result{Op: scenario.OpQueryMKey, List: mine}
			var wa, wb bytes.Buffer
			if err := a.WriteLine(&wa); err != nil {
				t.Fatal(err)
			}
			if err := b.WriteLine(&wb); err != nil {
				t.Fatal(err)
			}
			if wa.String() != wb.String() || wa.String() != string(b.AppendJSON(nil))+"\n" {
				t.Fatalf("lines differ:\n snapshot %.300s\n memory   %.300s", wa.String(), wb.String())
			}
		})
	}
}

// TestSnapshotListCopiesOnlyPresent: a list of 2 x 0xFFFFFFFC MTT entries
// (64 GB) over a memory of two pages copies at most those pages.
func TestSnapshotListCopiesOnlyPresent(t *testing.T) {
	mem := pageMem{}
	mem.Write(0x1_0000_0000, prm.MTTEntry{PTag: 0x5000, RdEn: true}.Append(nil))
	mem.Write(0x1_0000_0000+8*0x1_2345_6789, prm.MTTEntry{PTag: 0x7000, WrEn: true}.Append(nil))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l := scenario.SnapshotList(mem, scenario.ListMTT, 0x1_0000_0000, 2*0xFFFFFFFC)
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 64<<10 {
		t.Errorf("the snapshot of two pages allocated %d bytes", d)
	}
	if l.Len() != 2*0xFFFFFFFC {
		t.Fatalf("len %d", l.Len())
	}
	if e := l.MTT(0); e != (prm.MTTEntry{PTag: 0x5000, RdEn: true}) {
		t.Errorf("entry 0: %+v", e)
	}
	if e := l.MTT(0x1_2345_6789); e != (prm.MTTEntry{PTag: 0x7000, WrEn: true}) {
		t.Errorf("entry 0x123456789: %+v", e)
	}
	if e := l.MTT(2*0xFFFFFFFC - 1); e != (prm.MTTEntry{}) {
		t.Errorf("last entry: %+v", e)
	}
}

// TestWriteLineStreamsHugeList: the line of a query of 2 x 0xFFFFFFFC MTT
// entries is streamed into a writer that fails after 50 MB: WriteLine
// returns the writer's error, and allocates a constant, not the line.
func TestWriteLineStreamsHugeList(t *testing.T) {
	mem := pageMem{}
	mem.Write(0x1_0000_0000, prm.MTTEntry{PTag: 0x5000, RdEn: true, WrEn: true}.Append(nil))
	res := scenario.Result{Seq: 1, Op: scenario.OpQueryMKey, List: scenario.SnapshotList(mem, scenario.ListMTT, 0x1_0000_0000, 2*0xFFFFFFFC)}
	w := &capped{limit: 50 << 20}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := res.WriteLine(w)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, errFull) {
		t.Fatalf("WriteLine: %v, want the writer's error", err)
	}
	if w.n != w.limit {
		t.Errorf("wrote %d bytes before the error, want %d", w.n, w.limit)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("50 MB of a 340 GB line: %d bytes allocated", alloc)
	if alloc > 1<<20 {
		t.Errorf("WriteLine allocated %d bytes for 50 MB of line", alloc)
	}
	// Through WriteResults, behind a buffer, the same error comes back.
	if err := scenario.WriteResults(&capped{limit: 1 << 20}, []scenario.Result{res}); !errors.Is(err, errFull) {
		t.Errorf("WriteResults: %v, want the writer's error", err)
	}
}

// TestWriteLineMatchesAppendJSON: WriteLine writes AppendJSON's bytes and
// a newline for every line of the examples' expected files.
func TestWriteLineMatchesAppendJSON(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.expected.jsonl")
	if len(files) == 0 {
		t.Fatal("no expected files in ../examples")
	}
	lists := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := scenario.ReadResults(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var all bytes.Buffer
		if err := scenario.WriteResults(&all, rs); err != nil {
			t.Fatal(err)
		}
		var want []byte
		for i := range rs {
			if rs[i].List != nil {
				lists++
			}
			var one bytes.Buffer
			if err := rs[i].WriteLine(&one); err != nil {
				t.Fatal(err)
			}
			line := append(rs[i].AppendJSON(nil), '\n')
			if !bytes.Equal(one.Bytes(), line) {
				t.Fatalf("%s seq %d:\n WriteLine  %s AppendJSON %s", f, rs[i].Seq, one.Bytes(), line)
			}
			want = append(want, line...)
		}
		if !bytes.Equal(all.Bytes(), want) {
			t.Fatalf("%s: WriteResults differs from the lines", f)
		}
	}
	if lists == 0 {
		t.Error("no expected line has a list")
	}
}

// TestDiffListDeep: Diff names the first differing entry by index, deep in
// a list of 2^33 entries (two snapshots, compared without reading the
// zero runs) and at the end of a million entries in memory.
func TestDiffListDeep(t *testing.T) {
	const count = 1 << 33
	const deep = 1<<32 + 5
	a, b := pageMem{}, pageMem{}
	for _, m := range []pageMem{a, b} {
		m.Write(0x1_0000_0000, prm.MTTEntry{PTag: 0x1000, RdEn: true}.Append(nil))
		m.Write(0x1_0000_0000+8*(1<<31), prm.MTTEntry{PTag: 0x2000, RdEn: true}.Append(nil))
	}
	b.Write(0x1_0000_0000+8*deep, prm.MTTEntry{PTag: 0x3000, WrEn: true}.Append(nil))
	la := scenario.SnapshotList(a, scenario.ListMTT, 0x1_0000_0000, count)
	lb := scenario.SnapshotList(b, scenario.ListMTT, 0x1_0000_0000, count)
	start := time.Now()
	ra := scenario.Result{Seq: 7, Op: scenario.OpQueryMKey, List: la}
	rb := scenario.Result{Seq: 7, Op: scenario.OpQueryMKey, List: lb}
	d := scenario.Diff(&ra, &rb)
	want := fmt.Sprintf("mtt[%d]", uint64(deep))
	if !strings.Contains(d, want) || !strings.Contains(d, "0x3000") {
		t.Errorf("Diff = %q, want it to name %s and the wanted entry", d, want)
	}
	if d := scenario.Diff(&ra, &ra); d != "" {
		t.Errorf("a list differs from itself: %s", d)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("comparing two sparse lists of 2^33 entries took %v", el)
	}

	// KLM lists in memory against a snapshot, differing at the last entry.
	const n = 1 << 20
	m := pageMem{}
	ents := make([]prm.KLMEntry, n)
	for i := range ents {
		ents[i] = prm.KLMEntry{ByteCount: uint32(i), MKey: prm.Key(i * 3), Address: uint64(i) << 12}
	}
	var raw []byte
	for _, e := range ents {
		raw = e.Append(raw)
	}
	m.Write(0x4_0000_0000, raw)
	snap := scenario.SnapshotList(m, scenario.ListKLM, 0x4_0000_0000, n)
	ents2 := slices.Clone(ents)
	ents2[n-1].Address++
	if d := scenario.DiffList(snap, scenario.NewKLMList(ents)); d != "" {
		t.Errorf("equal lists: %s", d)
	}
	if d := scenario.DiffList(snap, scenario.NewKLMList(ents2)); !strings.Contains(d, fmt.Sprintf("klm[%d]", n-1)) {
		t.Errorf("DiffList = %q, want it to name klm[%d]", d, n-1)
	}
}

// TestDiffListShapes: counts, kinds, and the empty list.
func TestDiffListShapes(t *testing.T) {
	mtt := scenario.NewMTTList([]prm.MTTEntry{{PTag: 0x1000}})
	klm := scenario.NewKLMList([]prm.KLMEntry{{MKey: 1}})
	emptyMTT := scenario.NewMTTList([]prm.MTTEntry{})
	emptyKLM := scenario.NewKLMList(nil)
	for _, c := range []struct {
		got, want *scenario.List
		diff      string
	}{
		{mtt, klm, "is mtt, want klm"},
		{mtt, emptyMTT, "has 1 entries, want 0"},
		{nil, mtt, "has 0 entries, want 1"},
		{nil, emptyMTT, ""},
		{emptyKLM, emptyMTT, ""},
		{mtt, mtt, ""},
	} {
		d := scenario.DiffList(c.got, c.want)
		if c.diff == "" && d != "" || c.diff != "" && !strings.Contains(d, c.diff) {
			t.Errorf("DiffList(%v %d, %v %d) = %q, want %q", c.got.Kind(), c.got.Len(), c.want.Kind(), c.want.Len(), d, c.diff)
		}
	}
}

// TestReadResultLists: "mtt":[] is an empty MTT list, not no list; a line
// with both lists is refused; the entries read back.
func TestReadResultLists(t *testing.T) {
	r, err := scenario.ParseResult([]byte(`{"seq":0,"op":"query_mkey","status":"OK","mkc_hex":"` + strings.Repeat("0", 128) + `","mtt":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.List == nil || r.List.Kind() != scenario.ListMTT || r.List.Len() != 0 {
		t.Errorf("mtt:[] read as %v %d", r.List.Kind(), r.List.Len())
	}
	if got := string(r.AppendJSON(nil)); !strings.HasSuffix(got, `"mtt":[]}`) {
		t.Errorf("written back as %s", got)
	}
	if _, err := scenario.ParseResult([]byte(`{"seq":0,"op":"query_mkey","status":"OK","mtt":[],"klm":[]}`)); err == nil {
		t.Error("a line with mtt and klm accepted")
	}
	r, err = scenario.ParseResult([]byte(`{"seq":0,"op":"query_mkey","status":"OK","klm":[{"byte_count":5,"mkey":"0x102","address":"0x40"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.List.Len() != 1 || r.List.KLM(0) != (prm.KLMEntry{ByteCount: 5, MKey: 0x102, Address: 0x40}) {
		t.Errorf("klm read as %+v", r.List.KLM(0))
	}
}
