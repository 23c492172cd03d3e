package stimulus

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
)

// traceWorkload writes body to a trace file NAME in a temporary
// directory and returns a trace workload of it with n accesses (the
// defaults otherwise: 64 regions of 1 MiB in 4 KiB pages), tweaked.
func traceWorkload(t *testing.T, name, body string, n int, tweak func(*Workload)) Workload {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	w := DefaultWorkload()
	w.Kind, w.TraceFile, w.Accesses = KindTrace, path, n
	if tweak != nil {
		tweak(&w)
	}
	return w
}

// acc is an access of a test, at offset in the region of key's index.
func acc(qpn uint32, key prm.Key, off uint64, n uint32, typ prm.AccessType) scenario.Access {
	return scenario.Access{QPN: qpn, Key: key, Type: typ, Addr: regionBase(int(key.Index())-1) + off, Len: n}
}

// r is region k's key.
func r(k uint32) prm.Key { return prm.MakeKey(k, 0) }

// TestTraceWorkloadParse: good CSV and JSON-lines files give the
// accesses they say: addresses in decimal and hex, offsets in the key's
// region, keys as MKeys or rN, types in any case, columns in any order,
// comments, blank lines, spaces, CRLF and a byte order mark.
func TestTraceWorkloadParse(t *testing.T) {
	const (
		LR = prm.LocalRead
		LW = prm.LocalWrite
		RR = prm.RemoteRead
		RW = prm.RemoteWrite
		RA = prm.RemoteAtomic
	)
	for _, tc := range []struct {
		name, file, body string
		want             []scenario.Access
	}{
		{"csv, hex and decimal addresses", "t.csv",
			"qpn,key,addr,len,type\n1,r1,0x10000000000,64,LOCAL_READ\n1,r2,2199023259648,4096,LOCAL_WRITE\n",
			[]scenario.Access{acc(1, r(1), 0, 64, LR), acc(1, r(2), 4096, 4096, LW)}},
		{"csv, types in any case, every QP", "t.csv",
			"qpn,key,addr,len,type\n1,r3,0x30000000000,8,local_read\n2,r3,0x30000000008,8,Local_Write\n3,r3,0x30000000010,8,remote_read\n4,r3,0x30000000018,8,REMOTE_write\n1,r3,0x30000000020,8,remote_ATOMIC\n",
			[]scenario.Access{acc(1, r(3), 0, 8, LR), acc(2, r(3), 8, 8, LW), acc(3, r(3), 16, 8, RR), acc(4, r(3), 24, 8, RW), acc(1, r(3), 32, 8, RA)}},
		{"csv, columns in another order, offsets", "t.csv",
			"type,len,offset,key,qpn\nREMOTE_READ,100,0,r5,1\nLOCAL_READ,1,0xfffff,r5,1\nLOCAL_READ,1048576,0,r64,1\n",
			[]scenario.Access{acc(1, r(5), 0, 100, RR), acc(1, r(5), 0xfffff, 1, LR), acc(1, r(64), 0, 1<<20, LR)}},
		{"csv, MKeys in hex and decimal, R5, any variant", "t.csv",
			"qpn,key,offset,len,type\n1,0x500,0,64,LOCAL_READ\n1,1280,64,64,LOCAL_READ\n1,R5,128,64,LOCAL_READ\n1,0x5ff,0,64,LOCAL_READ\n1,0X0000107,0,64,LOCAL_READ\n",
			[]scenario.Access{acc(1, r(5), 0, 64, LR), acc(1, r(5), 64, 64, LR), acc(1, r(5), 128, 64, LR), acc(1, prm.MakeKey(5, 0xff), 0, 64, LR), acc(1, prm.MakeKey(1, 7), 0, 64, LR)}},
		{"csv, comments, blank lines, spaces, CRLF, byte order mark, header case", "t.csv",
			"\uFEFF# a trace\r\n\r\n  # indented comment\r\n QPN , Key ,ADDR, len , TYPE \r\n\t\r\n 1 , r1 , 0x10000000040 , 64 , LOCAL_READ \r\n# the end\r\n1,r1,0x10000000080,64,LOCAL_READ",
			[]scenario.Access{acc(1, r(1), 64, 64, LR), acc(1, r(1), 128, 64, LR)}},
		{"jsonl, numbers and strings, addr and offset", "t.jsonl",
			`{"qpn":1,"key":"r1","addr":1099511627776,"len":64,"type":"LOCAL_READ"}
{"type":"remote_write","len":"0x40","offset":"4096","key":512,"qpn":"2"}
{"qpn":1, "key":"0x300", "offset":0, "len":8, "type":"REMOTE_ATOMIC"}
`,
			[]scenario.Access{acc(1, r(1), 0, 64, LR), acc(2, r(2), 4096, 64, RW), acc(1, r(3), 0, 8, RA)}},
		{"jsonl, comments and blank lines first", "t.jsonl",
			"# JSON lines\n\n   {\"qpn\":4,\"key\":\"r64\",\"offset\":1048575,\"len\":1,\"type\":\"local_read\"}  \n\n# done\n",
			[]scenario.Access{acc(4, r(64), 1<<20-1, 1, LR)}},
		{"a 2^30 byte access over a 1 GiB region", "t.csv",
			"qpn,key,offset,len,type\n1,r1,0,1073741824,LOCAL_READ\n",
			[]scenario.Access{acc(1, r(1), 0, 1<<30, LR)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := traceWorkload(t, tc.file, tc.body, 0, func(w *Workload) {
				if strings.Contains(tc.name, "1 GiB") {
					w.MRs, w.MRBytes, w.PageBytes = 2, 1<<30, 2<<20
				}
			})
			if err := w.Check(); err != nil {
				t.Fatal(err)
			}
			sc := Generate(w)
			if len(sc.MKeys) != w.MRs || len(sc.Ops) != len(tc.want) {
				t.Fatalf("%d keys and %d operations, want %d and %d", len(sc.MKeys), len(sc.Ops), w.MRs, len(tc.want))
			}
			for i, op := range sc.Ops {
				if op.Kind != scenario.OpAccess || op.Access != tc.want[i] {
					t.Errorf("access %d: %+v, want %+v", i, op.Access, tc.want[i])
				}
			}
		})
	}
}

// TestTraceWorkloadErrors: every bad trace is refused by Check (so by the
// configuration's Validate, which mkeysim run and sweep call) with an
// error naming the file, the line, the field and the reason; a
// generator of it makes nothing and says why; nothing panics.
func TestTraceWorkloadErrors(t *testing.T) {
	const head = "qpn,key,addr,len,type\n"
	const ok = "1,r1,0x10000000000,64,LOCAL_READ\n"
	long := head + "1,r1,0x10000000000,64,LOCAL_READ" + strings.Repeat(" ", 70000) + "\n"
	for _, tc := range []struct {
		name, file, body string
		line             int    // 0: the file as a whole
		field            string // "" for the line as a whole
		want             string // in the message, after "FILE: line N: "
	}{
		// CSV header.
		{"missing column", "t.csv", "qpn,key,addr,type\n" + ok, 1, "", `header "qpn,key,addr,type": no column len`},
		{"no addr nor offset", "t.csv", "qpn,key,len,type\n", 1, "", "no column addr (nor offset)"},
		{"addr and offset", "t.csv", "qpn,key,addr,offset,len,type\n", 1, "", "both columns addr and offset: want one of them"},
		{"unknown column", "t.csv", "qpn,key,addr,len,type,size\n", 1, "", `column "size": want the columns qpn, key, addr or offset, len and type`},
		{"column twice", "t.csv", "qpn,key,addr,len,type,KEY\n", 1, "", "column key given twice"},
		{"header after comments", "t.csv", "# c\n\nqpn;key;addr;len;type\n", 3, "", `column "qpn;key;addr;len;type"`},
		// CSV lines.
		{"too few fields", "t.csv", head + ok + "1,r1,0x10000000000,64\n", 3, "", `4 fields, want 5 (the header "qpn,key,addr,len,type")`},
		{"too many fields", "t.csv", head + "\n# c\n" + "1,r1,0x10000000000,64,LOCAL_READ,x\n", 4, "", "6 fields, want 5"},
		{"bad hex addr", "t.csv", head + ok + "1,r1,0xzz,64,LOCAL_READ\n", 3, "addr", `addr = "0xzz": want decimal digits or 0x and hex digits`},
		{"bad decimal addr", "t.csv", head + "1,r1,12abc,64,LOCAL_READ\n", 2, "addr", `addr = "12abc": want decimal digits`},
		{"negative addr", "t.csv", head + "1,r1,-1,64,LOCAL_READ\n", 2, "addr", `addr = "-1": want decimal digits`},
		{"empty addr", "t.csv", head + "1,r1,,64,LOCAL_READ\n", 2, "addr", `addr = "": want decimal digits`},
		{"addr past 64 bits", "t.csv", head + "1,r1,0x10000000000000000,64,LOCAL_READ\n", 2, "addr", "wider than 64 bits"},
		{"qpn past 24 bits", "t.csv", head + "0x1000000,r1,0x10000000000,64,LOCAL_READ\n", 2, "qpn", `qpn = "0x1000000": wider than 24 bits`},
		{"qpn not the workload's", "t.csv", head + "5,r1,0x10000000000,64,LOCAL_READ\n", 2, "qpn", `qpn = "5": want a QP of the workload: 1 or 2`},
		{"key r alone", "t.csv", head + "1,r,0x10000000000,64,LOCAL_READ\n", 2, "key", `key = "r": want decimal digits or 0x and hex digits (an MKey), or r and a region's index (r5)`},
		{"key rx", "t.csv", head + "1,rx,0x10000000000,64,LOCAL_READ\n", 2, "key", `key = "rx": want r and a region's index in decimal`},
		{"key r past 24 bits", "t.csv", head + "1,r16777216,0x10000000000,64,LOCAL_READ\n", 2, "key", "want r and a region's index"},
		{"key past 32 bits", "t.csv", head + "1,0x100000000,0x10000000000,64,LOCAL_READ\n", 2, "key", "wider than 32 bits"},
		{"key not a region", "t.csv", head + ok + "1,r65,0x41000000000,64,LOCAL_READ\n", 3, "key", "key = r65: index 65 is not a region's: want an index in 1..64 (workload.mrs = 64)"},
		{"MKey not a region", "t.csv", head + "1,0x4101,0x41000000000,64,LOCAL_READ\n", 2, "key", "key = 0x4101: index 65 is not a region's"},
		{"key index 0", "t.csv", head + "1,r0,0x0,64,LOCAL_READ\n", 2, "key", "index 0 is not a region's"},
		{"unknown type", "t.csv", head + "1,r1,0x10000000000,64,READ\n", 2, "type", `type = "READ": want LOCAL_READ, LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE or REMOTE_ATOMIC (in any case)`},
		{"len 0", "t.csv", head + "1,r1,0x10000000000,0,LOCAL_READ\n", 2, "len", `len = "0": want 1..2^30 bytes`},
		{"len past 2^30", "t.csv", head + "1,r1,0x10000000000,1073741825,LOCAL_READ\n", 2, "len", `len = "1073741825": want 1..2^30 bytes`},
		{"len not a number", "t.csv", head + "1,r1,0x10000000000,64B,LOCAL_READ\n", 2, "len", `len = "64B"`},
		{"addr below its region", "t.csv", head + "1,r2,0x1ffffffffff,2,LOCAL_READ\n", 2, "addr", "addr = 0x1ffffffffff: 0x1ffffffffff + len 2 is not inside region 2 [0x20000000000, 0x20000100000)"},
		{"addr runs past its region", "t.csv", head + "1,r2,0x200000fffc1,64,LOCAL_READ\n", 2, "addr", "0x200000fffc1 + len 64 is not inside region 2"},
		{"addr in another region", "t.csv", head + "1,r1,0x20000000000,64,LOCAL_READ\n", 2, "addr", "is not inside region 1 [0x10000000000, 0x10000100000)"},
		{"addr at 2^64-1", "t.csv", head + "1,r1,0xffffffffffffffff,64,LOCAL_READ\n", 2, "addr", "is not inside region 1"},
		{"offset past its region", "t.csv", "qpn,key,offset,len,type\n1,r1,1048512,65,LOCAL_READ\n", 2, "offset", "offset = 1048512: offset + len = 1048512 + 65 passes the end of region 1 (workload.mr_bytes = 1048576)"},
		{"offset huge", "t.csv", "qpn,key,offset,len,type\n1,r1,0xffffffffffffffff,1,LOCAL_READ\n", 2, "offset", "passes the end of region 1"},
		{"header only", "t.csv", "# nothing\n" + head + "\n", 0, "", "no accesses (only blank lines, comments or a header)"},
		{"empty file", "t.csv", "", 0, "", "no accesses"},
		{"line too long", "t.csv", long, 2, "", "longer than 65536 bytes"},
		// JSON lines.
		{"not JSON", "t.jsonl", "{qpn:1}\n", 1, "", "want one JSON object with the fields qpn, key, addr or offset, len and type"},
		{"JSON cut short", "t.jsonl", `{"qpn":1,"key":"r1"` + "\n", 1, "", "want one JSON object"},
		{"CSV after JSON", "t.jsonl", `{"qpn":1,"key":"r1","offset":0,"len":64,"type":"LOCAL_READ"}` + "\n" + ok, 2, "", "want one JSON object"},
		{"missing field", "t.jsonl", `{"qpn":1,"key":"r1","offset":0,"type":"LOCAL_READ"}` + "\n", 1, "", "no field len"},
		{"no addr nor offset field", "t.jsonl", `{"qpn":1,"key":"r1","len":1,"type":"LOCAL_READ"}` + "\n", 1, "", "no field addr (nor offset)"},
		{"addr and offset fields", "t.jsonl", `{"qpn":1,"key":"r1","addr":0,"offset":0,"len":1,"type":"LOCAL_READ"}` + "\n", 1, "", "both fields addr and offset"},
		{"unknown field", "t.jsonl", `{"qpn":1,"key":"r1","offset":0,"len":1,"type":"LOCAL_READ","op":"access"}` + "\n", 1, "", `field "op": want the fields qpn, key, addr or offset, len and type`},
		{"field twice", "t.jsonl", `{"qpn":1,"key":"r1","offset":0,"len":1,"len":2,"type":"LOCAL_READ"}` + "\n", 1, "len", "len: given twice"},
		{"text after the object", "t.jsonl", `{"qpn":1,"key":"r1","offset":0,"len":1,"type":"LOCAL_READ"} x` + "\n", 1, "", "text after the JSON object"},
		{"two objects", "t.jsonl", `{"qpn":1,"key":"r1","offset":0,"len":1,"type":"LOCAL_READ"}{}` + "\n", 1, "", "text after the JSON object"},
		{"type a number", "t.jsonl", `{"qpn":1,"key":"r1","offset":0,"len":1,"type":0}` + "\n", 1, "type", "type = 0: want LOCAL_READ"},
		{"fraction", "t.jsonl", `{"qpn":1,"key":"r1","offset":1.5,"len":1,"type":"LOCAL_READ"}` + "\n", 1, "offset", "offset = 1.5: want an unsigned integer"},
		{"negative", "t.jsonl", `{"qpn":1,"key":"r1","offset":0,"len":-1,"type":"LOCAL_READ"}` + "\n", 1, "len", "len = -1: want an unsigned integer"},
		{"exponent", "t.jsonl", `{"qpn":1,"key":"r1","offset":1e3,"len":1,"type":"LOCAL_READ"}` + "\n", 1, "offset", "offset = 1e3: want an unsigned integer"},
		{"null", "t.jsonl", `{"qpn":null,"key":"r1","offset":0,"len":1,"type":"LOCAL_READ"}` + "\n", 1, "qpn", "qpn = null: want a number"},
		{"key true", "t.jsonl", `{"qpn":1,"key":true,"offset":0,"len":1,"type":"LOCAL_READ"}` + "\n", 1, "key", "key = true: want a number"},
		{"hex in a JSON number", "t.jsonl", `{"qpn":1,"key":"r1","offset":0x10,"len":1,"type":"LOCAL_READ"}` + "\n", 1, "", "want one JSON object"},
		{"JSON key not a region", "t.jsonl", `{"qpn":1,"key":16640,"offset":0,"len":1,"type":"LOCAL_READ"}` + "\n", 1, "key", "key = 0x4100: index 65 is not a region's"},
		{"JSON past its region", "t.jsonl", "# c\n" + `{"qpn":1,"key":"r9","offset":"0x100000","len":1,"type":"LOCAL_READ"}` + "\n", 2, "offset", "passes the end of region 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := traceWorkload(t, tc.file, tc.body, 10, nil)
			err := w.Check()
			var te *TraceError
			if err == nil || !errors.As(err, &te) {
				t.Fatalf("Check: %v, want a TraceError", err)
			}
			prefix := "workload.trace_file: " + w.TraceFile + ": "
			if tc.line > 0 {
				prefix += "line " + strconv.Itoa(tc.line) + ": "
			}
			if tc.field != "" {
				prefix += tc.field
			}
			if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n\t%v\nwant one starting %q with %q", err, prefix, tc.want)
			}
			if te.File != w.TraceFile || te.Line != tc.line || te.Field != tc.field {
				t.Errorf("TraceError %+v: want file %s, line %d, field %q", te, w.TraceFile, tc.line, tc.field)
			}
			g := NewGenerator(w)
			if g.Err() == nil || g.Err().Error() != err.Error() || g.Next(10) != nil || len(g.Setup().MKeys) != 0 {
				t.Errorf("generator of a bad trace: Err %v, want the error of Check and nothing made", g.Err())
			}
			if sc := Generate(w); len(sc.Ops) != 0 {
				t.Errorf("Generate of a bad trace made %d operations", len(sc.Ops))
			}
		})
	}
	// No file, or a file that cannot be read.
	w := DefaultWorkload()
	w.Kind = KindTrace
	if err := w.Check(); err == nil || err.Error() != `workload.trace_file = "": want the path of the trace to replay (workload.kind = trace)` {
		t.Errorf("no trace_file: %v", err)
	}
	w.TraceFile = filepath.Join(t.TempDir(), "none.csv")
	if err := w.Check(); err == nil || !strings.HasPrefix(err.Error(), "workload.trace_file: open "+w.TraceFile+": ") {
		t.Errorf("missing file: %v", err)
	}
	w.TraceFile = t.TempDir()
	if err := w.Check(); err == nil || !strings.HasPrefix(err.Error(), "workload.trace_file: "+w.TraceFile+": ") {
		t.Errorf("a directory: %v", err)
	}
	// The other kinds do not read it.
	for _, k := range []string{KindMixed, KindUniform} {
		w.Kind = k
		if err := w.Check(); err != nil {
			t.Errorf("kind %s with a bad trace_file: %v", k, err)
		}
	}
	// A generator of a workload whose ranges are wrong says so, no panic.
	w = traceWorkload(t, "t.csv", head+ok, 1, func(w *Workload) { w.PageBytes = 0 })
	if g := NewGenerator(w); g.Err() == nil || !strings.Contains(g.Err().Error(), "workload.page_bytes = 0") {
		t.Errorf("page_bytes 0: %v", g.Err())
	}
}

// TestTraceWorkloadLength: accesses = 0 replays the trace once; fewer
// stop early; more wrap around to the start; chunks of Next make what
// Generate makes; TraceSummary says which.
func TestTraceWorkloadLength(t *testing.T) {
	body := "qpn,key,offset,len,type\n1,r1,0,64,LOCAL_READ\n1,r2,64,64,LOCAL_READ\n1,r3,128,64,LOCAL_READ\n"
	trace := []scenario.Access{acc(1, r(1), 0, 64, prm.LocalRead), acc(1, r(2), 64, 64, prm.LocalRead), acc(1, r(3), 128, 64, prm.LocalRead)}
	for _, tc := range []struct {
		accesses int
		want     []int // indices into trace
		summary  string
	}{
		{0, []int{0, 1, 2}, "(3 accesses)"},
		{3, []int{0, 1, 2}, "(3 accesses)"},
		{2, []int{0, 1}, "(3 accesses, the first 2)"},
		{1, []int{0}, "(3 accesses, the first 1)"},
		{7, []int{0, 1, 2, 0, 1, 2, 0}, "(3 accesses, wrapped around to make 7)"},
		{10, []int{0, 1, 2, 0, 1, 2, 0, 1, 2, 0}, "(3 accesses, wrapped around to make 10)"},
	} {
		w := traceWorkload(t, "t.csv", body, tc.accesses, nil)
		if err := w.Check(); err != nil {
			t.Fatal(err)
		}
		if got, want := w.TraceSummary(), "trace "+w.TraceFile+" "+tc.summary; got != want {
			t.Errorf("accesses %d: summary %q, want %q", tc.accesses, got, want)
		}
		sc := Generate(w)
		var got []scenario.Access
		for _, op := range sc.Ops {
			got = append(got, op.Access)
		}
		var want []scenario.Access
		for _, i := range tc.want {
			want = append(want, trace[i])
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("accesses %d: %v, want %v", tc.accesses, got, want)
		}
		for _, chunk := range []int{1, 2, 4} {
			g := NewGenerator(w)
			var ops []scenario.Op
			for c := g.Next(chunk); c != nil; c = g.Next(chunk) {
				ops = append(ops, c...)
			}
			if !reflect.DeepEqual(ops, sc.Ops) || !reflect.DeepEqual(g.Setup().MKeys, sc.MKeys) {
				t.Errorf("accesses %d in chunks of %d: %d operations differ from Generate's %d", tc.accesses, chunk, len(ops), len(sc.Ops))
			}
		}
	}
	w := DefaultWorkload()
	if s := w.TraceSummary(); s != "" {
		t.Errorf("mixed workload: summary %q", s)
	}
}

// TestTraceWorkloadReadOnce: Check reads the file and the workload keeps
// it: Generate, copies and a change of regions use what was read (the
// file is gone); a change of file reads the new one.
func TestTraceWorkloadReadOnce(t *testing.T) {
	w := traceWorkload(t, "t.csv", "qpn,key,offset,len,type\n1,r2,0,64,LOCAL_READ\n", 5, nil)
	if err := w.Check(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(w.TraceFile); err != nil {
		t.Fatal(err)
	}
	c := w
	c.MRs = 2 // checked again, without reading
	if err := c.Check(); err != nil {
		t.Fatalf("copy with 2 regions: %v", err)
	}
	if sc := Generate(c); len(sc.Ops) != 5 || len(sc.MKeys) != 2 || sc.Ops[4].Access != acc(1, r(2), 0, 64, prm.LocalRead) {
		t.Fatalf("replay of a file read once: %d keys, %d operations", len(sc.MKeys), len(sc.Ops))
	}
	c.MRs = 1
	if err := c.Check(); err == nil || !strings.Contains(err.Error(), ": line 2: key = r2: index 2 is not a region's: want an index in 1..1") {
		t.Errorf("copy with 1 region: %v", err)
	}
	c.MRs, c.TraceFile = 2, c.TraceFile+".other"
	if err := c.Check(); err == nil || !strings.Contains(err.Error(), "open "+c.TraceFile) {
		t.Errorf("another file: %v", err)
	}
}

// smallStatuses are the statuses of examples/traces/small.csv, as
// docs/workloads.md gives them.
func smallStatuses() []prm.Status {
	s := make([]prm.Status, 9, 12)
	return append(s, prm.MisalignedAtomic, prm.PDMismatch, prm.KeyMismatch)
}

// TestTraceWorkloadExamples: the example traces, CSV and JSON lines,
// hold the same accesses, with the statuses docs/workloads.md gives
// (golden model).
func TestTraceWorkloadExamples(t *testing.T) {
	var ops [][]scenario.Op
	for _, f := range []string{"small.csv", "small.jsonl"} {
		w := DefaultWorkload()
		w.Kind, w.TraceFile, w.Accesses = KindTrace, "../../examples/traces/"+f, 0
		if err := w.Check(); err != nil {
			t.Fatal(err)
		}
		sc := Generate(w)
		res, err := ref.Run(sc, ref.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		want := smallStatuses()
		if len(res) != len(want) {
			t.Fatalf("%s: %d results, want %d", f, len(res), len(want))
		}
		for i := range res {
			if res[i].Status != want[i] {
				t.Errorf("%s: access %d (%+v): %v, want %v", f, i, sc.Ops[i].Access, res[i].Status, want[i])
			}
		}
		ops = append(ops, sc.Ops)
	}
	if !reflect.DeepEqual(ops[0], ops[1]) {
		t.Errorf("small.csv and small.jsonl differ:\n%v\n%v", ops[0], ops[1])
	}
}
