package scenario_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"mkeysim/pagetable"
	"mkeysim/prm"
	"mkeysim/scenario"
)

// TestParseIOMMU: the iommu section and iommu_unmap as scenario.md gives
// them: the requester ID and its default, rid or pasid or neither (the
// HCA's own), perm names, numbers as the format's numbers.
func TestParseIOMMU(t *testing.T) {
	doc := `{"qps": [{"qpn": 1, "pd": 5}],
	  "iommu": {"requester_id": "0x100", "mappings": [
	    {"iova": "0x10000", "pa": "0x80000000", "size": 8192, "perm": "rw"},
	    {"rid": 7, "iova": 0, "pa": "0x200000", "size": "0x200000", "perm": "r"},
	    {"pasid": "0xfffff", "iova": "0x40000000", "pa": "0x40000000", "size": "0x40000000", "perm": "w"}]},
	  "ops": [{"op": "iommu_unmap", "iova": "0x10000", "size": 4096},
	          {"op": "iommu_unmap", "pasid": 3, "iova": 0, "size": "0x1000"},
	          {"op": "iommu_unmap", "rid": "0x100", "iova": "0x1000", "size": "0x1000"}]}`
	sc, err := scenario.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := &scenario.IOMMU{RequesterID: 0x100, Mappings: []scenario.IOMMUMapping{
		{Space: pagetable.Space{ID: 0x100}, IOVA: 0x10000, PA: 0x8000_0000, Size: 8192, R: true, W: true},
		{Space: pagetable.Space{ID: 7}, IOVA: 0, PA: 0x20_0000, Size: 0x20_0000, R: true},
		{Space: pagetable.Space{PASID: true, ID: 0xfffff}, IOVA: 0x4000_0000, PA: 0x4000_0000, Size: 0x4000_0000, W: true},
	}}
	if !reflect.DeepEqual(sc.IOMMU, want) {
		t.Errorf("iommu %+v, want %+v", sc.IOMMU, want)
	}
	unmaps := []scenario.IOMMUUnmap{
		{Space: pagetable.Space{ID: 0x100}, IOVA: 0x10000, Size: 4096},
		{Space: pagetable.Space{PASID: true, ID: 3}, IOVA: 0, Size: 0x1000},
		{Space: pagetable.Space{ID: 0x100}, IOVA: 0x1000, Size: 0x1000},
	}
	for i, u := range unmaps {
		op := sc.Ops[i]
		if op.Kind != scenario.OpIOMMUUnmap || op.Unmap == nil || *op.Unmap != u {
			t.Errorf("ops[%d] = %v %+v, want iommu_unmap %+v", i, op.Kind, op.Unmap, u)
		}
	}
	// No requester_id: 0; no mappings: an IOMMU that maps nothing.
	sc, err = scenario.Parse([]byte(`{"iommu": {}}`))
	if err != nil || sc.IOMMU == nil || sc.IOMMU.RequesterID != 0 || len(sc.IOMMU.Mappings) != 0 {
		t.Errorf("empty iommu section: %+v, %v", sc.IOMMU, err)
	}
	// No section: no IOMMU.
	sc, err = scenario.Parse([]byte(`{"qps": []}`))
	if err != nil || sc.IOMMU != nil {
		t.Errorf("no iommu section: %+v, %v", sc.IOMMU, err)
	}
}

// iommuErrorCases: each document's first error, as "path: message".
var iommuErrorCases = []struct{ name, doc, want string }{
	{"not object", `{"iommu": []}`, `iommu: want an object, got an array`},
	{"unknown field", `{"iommu": {"rid": 1}}`, `iommu.rid: unknown field "rid"`},
	{"requester_id wide", `{"iommu": {"requester_id": 65536}}`, `iommu.requester_id: value 65536 wider than 16 bits`},
	{"mappings kind", `{"iommu": {"mappings": {}}}`, `iommu.mappings: want an array, got an object`},
	{"mapping kind", `{"iommu": {"mappings": [1]}}`, `iommu.mappings[0]: want an object, got a number`},
	{"mapping field", `{"iommu": {"mappings": [{"iova": 0, "pa": 0, "size": 4096, "perm": "r", "len": 1}]}}`, `iommu.mappings[0].len: unknown field "len"`},
	{"missing iova", `{"iommu": {"mappings": [{"pa": 0, "size": 4096, "perm": "r"}]}}`, `iommu.mappings[0].iova: missing required field`},
	{"missing pa", `{"iommu": {"mappings": [{"iova": 0, "size": 4096, "perm": "r"}]}}`, `iommu.mappings[0].pa: missing required field`},
	{"missing size", `{"iommu": {"mappings": [{"iova": 0, "pa": 0, "perm": "r"}]}}`, `iommu.mappings[0].size: missing required field`},
	{"missing perm", `{"iommu": {"mappings": [{"iova": 0, "pa": 0, "size": 4096}]}}`, `iommu.mappings[0].perm: missing required field`},
	{"perm name", `{"iommu": {"mappings": [{"iova": 0, "pa": 0, "size": 4096, "perm": "RW"}]}}`, `iommu.mappings[0].perm: unknown perm "RW" (want r, w or rw)`},
	{"perm empty", `{"iommu": {"mappings": [{"iova": 0, "pa": 0, "size": 4096, "perm": ""}]}}`, `iommu.mappings[0].perm: unknown perm "" (want r, w or rw)`},
	{"perm kind", `{"iommu": {"mappings": [{"iova": 0, "pa": 0, "size": 4096, "perm": 3}]}}`, `iommu.mappings[0].perm: want a name, got a number`},
	{"rid and pasid", `{"iommu": {"mappings": [{"rid": 1, "pasid": 1, "iova": 0, "pa": 0, "size": 4096, "perm": "r"}]}}`, `iommu.mappings[0].pasid: give rid or pasid, not both`},
	{"pasid wide", `{"iommu": {"mappings": [{"pasid": "0x100000", "iova": 0, "pa": 0, "size": 4096, "perm": "r"}]}}`, `iommu.mappings[0].pasid: value 0x100000 wider than 20 bits`},
	{"rid wide", `{"iommu": {"mappings": [{"rid": "0x10000", "iova": 0, "pa": 0, "size": 4096, "perm": "r"}]}}`, `iommu.mappings[0].rid: value 0x10000 wider than 16 bits`},
	{"iova misaligned", `{"iommu": {"mappings": [{"iova": "0x1800", "pa": 0, "size": 4096, "perm": "r"}]}}`, `iommu.mappings[0]: rid 0x0000: iova 0x1800 not 4 KiB-aligned`},
	{"pa misaligned", `{"iommu": {"mappings": [{"iova": 0, "pa": "0x10", "size": 4096, "perm": "r"}]}}`, `iommu.mappings[0]: rid 0x0000: pa 0x10: want 4 KiB-aligned, below 2^52`},
	{"pa past 2^52", `{"iommu": {"mappings": [{"iova": 0, "pa": "0xffffffffffff000", "size": 4096, "perm": "r"}]}}`, `iommu.mappings[0]: rid 0x0000: pa 0xffffffffffff000: want 4 KiB-aligned, below 2^52`},
	{"size zero", `{"iommu": {"mappings": [{"iova": 0, "pa": 0, "size": 0, "perm": "r"}]}}`, `iommu.mappings[0]: rid 0x0000: size 0x0: want a nonzero multiple of 4 KiB`},
	{"size odd", `{"iommu": {"mappings": [{"iova": 0, "pa": 0, "size": 4097, "perm": "r"}]}}`, `iommu.mappings[0]: rid 0x0000: size 0x1001: want a nonzero multiple of 4 KiB`},
	{"past 2^48", `{"iommu": {"mappings": [{"iova": "0xfffffffff000", "pa": 0, "size": 8192, "perm": "r"}]}}`, `iommu.mappings[0]: rid 0x0000: [0xfffffffff000, +0x2000) past 2^48, the IOVAs a table maps`},
	{"overlap", `{"iommu": {"requester_id": 9, "mappings": [{"iova": "0x200000", "pa": 0, "size": "0x200000", "perm": "r"}, {"rid": 1, "iova": "0x200000", "pa": 0, "size": 4096, "perm": "r"}, {"iova": "0x3ff000", "pa": 0, "size": 8192, "perm": "rw"}]}}`,
		`iommu.mappings[2]: rid 0x0009: [0x3ff000, +0x2000) meets the mapping at iova 0x3ff000`},
	{"overlap pasid", `{"iommu": {"mappings": [{"pasid": 5, "iova": "0x1000", "pa": 0, "size": 4096, "perm": "r"}, {"pasid": 5, "iova": 0, "pa": 0, "size": 8192, "perm": "r"}]}}`,
		`iommu.mappings[1]: pasid 0x5: [0x0, +0x2000) meets the mapping at iova 0x1000`},
	{"no room", `{"iommu": {"mappings": [{"iova": 0, "pa": "0x1000", "size": "0x800000000000", "perm": "r"}]}}`,
		`iommu.mappings[0]: rid 0x0000: [0x0, +0x800000000000) needs at least 67108864 I/O page tables, more than the 16384 the tables' region holds`},
	{"unmap without iommu", `{"ops": [{"op": "iommu_unmap", "iova": 0, "size": 4096}]}`, `ops[0].op: iommu_unmap in a scenario without an iommu section`},
	{"unmap field", `{"iommu": {}, "ops": [{"op": "iommu_unmap", "iova": 0, "size": 4096, "perm": "r"}]}`, `ops[0].perm: unknown field "perm"`},
	{"unmap missing size", `{"iommu": {}, "ops": [{"op": "iommu_unmap", "iova": 0}]}`, `ops[0].size: missing required field`},
	{"unmap missing iova", `{"iommu": {}, "ops": [{"op": "iommu_unmap", "size": 4096}]}`, `ops[0].iova: missing required field`},
	{"unmap pasid wide", `{"iommu": {}, "ops": [{"op": "iommu_unmap", "pasid": 1048576, "iova": 0, "size": 4096}]}`, `ops[0].pasid: value 1048576 wider than 20 bits`},
	{"unmap rid and pasid", `{"iommu": {}, "ops": [{"op": "iommu_unmap", "rid": 0, "pasid": 0, "iova": 0, "size": 4096}]}`, `ops[0].pasid: give rid or pasid, not both`},
}

// TestParseIOMMUErrors pins each check of the iommu section and of
// iommu_unmap, with its JSON path.
func TestParseIOMMUErrors(t *testing.T) {
	for _, c := range iommuErrorCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := scenario.Parse([]byte(c.doc))
			var se *scenario.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a *scenario.Error", err)
			}
			if got := err.Error(); got != c.want {
				t.Errorf("error\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestMapCheckedBound: a mapping whose leaves need more tables than the
// region holds is refused at once, however large (not after counting
// 2^36 leaves), and one that fits up to the region's last table is made.
func TestMapCheckedBound(t *testing.T) {
	mem := &mapMemory{pages: map[uint64][]byte{}}
	tb := pagetable.New(mem, scenario.IOMMUTableBase, scenario.IOMMUTableSize)
	// 2^48 bytes with iova and pa alike only modulo 4 KiB: 2^36 leaves.
	err := scenario.MapChecked(tb, scenario.IOMMUMapping{IOVA: 0, PA: 0x1000, Size: 1 << 48, R: true})
	if err == nil || !strings.Contains(err.Error(), "more than the 16384") {
		t.Errorf("a 2^48-byte mapping of 4 KiB leaves: %v", err)
	}
	// 2^47 bytes alike modulo 1 GiB: 1 GiB leaves, a few tables.
	if err := scenario.MapChecked(tb, scenario.IOMMUMapping{IOVA: 0, PA: 1 << 40, Size: 1 << 47, R: true}); err != nil {
		t.Errorf("a 2^47-byte mapping of 1 GiB leaves: %v", err)
	}
	if r := tb.Walk(pagetable.Space{}, 0x1234_5678_9abc); !r.OK || r.PA != 1<<40+0x1234_5678_9abc || r.Size != 1<<30 {
		t.Errorf("walk %+v", r)
	}
}

// mapMemory is sparse memory for the tests.
type mapMemory struct{ pages map[uint64][]byte }

func (m *mapMemory) Read(a uint64, b []byte) {
	for i := range b {
		if p := m.pages[(a+uint64(i))>>12]; p != nil {
			b[i] = p[(a+uint64(i))&0xfff]
		} else {
			b[i] = 0
		}
	}
}

func (m *mapMemory) Write(a uint64, b []byte) {
	for i, c := range b {
		p := m.pages[(a+uint64(i))>>12]
		if p == nil {
			p = make([]byte, 4096)
			m.pages[(a+uint64(i))>>12] = p
		}
		p[(a+uint64(i))&0xfff] = c
	}
}

// TestResultPA: a segment's pa is written after addr, read back, and
// compared; a segment without one is written as before issue 36. An
// IOMMU_FAULT line carries fault_key and fault_addr, compared as a
// PAGE_FAULT's.
func TestResultPA(t *testing.T) {
	r := scenario.Result{Seq: 2, Op: scenario.OpAccess, Segments: []prm.Segment{
		{Space: prm.SpaceDMA, HasPA: true, Addr: 0x10f00, Len: 256, PA: 0x8000_0f00},
		{Space: prm.SpaceDMA, Addr: 0x20000, Len: 16},
		{Space: prm.SpaceDMA, HasPA: true, Addr: 0x30000, Len: 16, PA: 0},
	}}
	line := r.AppendJSON(nil)
	const want = `{"seq":2,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x10f00","pa":"0x80000f00","len":256},{"space":"dma","addr":"0x20000","len":16},{"space":"dma","addr":"0x30000","pa":"0x0","len":16}]}`
	if string(line) != want {
		t.Fatalf("line\n%s\nwant\n%s", line, want)
	}
	back, err := scenario.ParseResult(line)
	if err != nil {
		t.Fatal(err)
	}
	if d := scenario.Diff(&back, &r); d != "" {
		t.Errorf("read back: %s", d)
	}
	other := r.Clone()
	other.Segments[0].PA += 0x1000
	if d := scenario.Diff(&other, &r); !strings.Contains(d, "pa 0x80001f00") {
		t.Errorf("a different pa: %q", d)
	}
	other = r.Clone()
	other.Segments[2].HasPA = false
	if d := scenario.Diff(&other, &r); d == "" {
		t.Error("a segment without pa compared equal to one with pa 0x0")
	}
	if _, err := scenario.ParseResult([]byte(`{"seq":0,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x0","pa":"0xz","len":1}]}`)); err == nil || !strings.Contains(err.Error(), "segments[0].pa") {
		t.Errorf("a bad pa: %v", err)
	}
	f := scenario.Result{Seq: 1, Op: scenario.OpAccess, Status: prm.IOMMUFault, Level: 1, Offset: 4096, FaultKey: 0x201, FaultAddr: 0x12000}
	line = f.AppendJSON(nil)
	if want := `{"seq":1,"op":"access","status":"IOMMU_FAULT","level":1,"offset":4096,"fault_key":"0x201","fault_addr":"0x12000"}`; string(line) != want {
		t.Errorf("line\n%s\nwant\n%s", line, want)
	}
	back, err = scenario.ParseResult(line)
	if err != nil || scenario.Diff(&back, &f) != "" {
		t.Errorf("read back %+v, %v", back, err)
	}
	other = f
	other.FaultAddr++
	if d := scenario.Diff(&other, &f); !strings.Contains(d, "fault_addr") {
		t.Errorf("a different fault_addr: %q", d)
	}
	// The digest of segments left out of a line tells pa apart.
	var a, b, c scenario.SegmentSum
	a.Add(0, prm.Segment{Addr: 0x1000, Len: 64})
	b.Add(0, prm.Segment{Addr: 0x1000, Len: 64, HasPA: true, PA: 0})
	c.Add(0, prm.Segment{Addr: 0x1000, Len: 64, HasPA: true, PA: 0x1000})
	if a == b || b == c {
		t.Errorf("digests %#x %#x %#x", uint64(a), uint64(b), uint64(c))
	}
	var buf bytes.Buffer
	if err := scenario.WriteResults(&buf, []scenario.Result{r}); err != nil || buf.String() != want+"\n" {
		t.Errorf("WriteResults %q, %v", buf.String(), err)
	}
}
