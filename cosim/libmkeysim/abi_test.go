//go:build cgo

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"unsafe"

	"mkeysim/prm"
	"mkeysim/vectors"
)

// vecFile is a generated vector or table file read back from its bytes,
// as a Verilog testbench reads it: fields by name at the manifest's bits.
type vecFile struct {
	fields map[string]vectors.Field
	lines  []*big.Int
}

func readVecFile(t *testing.T, out *vectors.Output, name string, fields []vectors.Field) *vecFile {
	t.Helper()
	f := &vecFile{fields: map[string]vectors.Field{}}
	for _, fd := range fields {
		f.fields[fd.Name] = fd
	}
	for _, file := range out.Files {
		if file.Name != name {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(file.Data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s := strings.TrimSpace(sc.Text())
			if s == "" || strings.HasPrefix(s, "//") {
				continue
			}
			x, ok := new(big.Int).SetString(s, 16)
			if !ok {
				t.Fatalf("%s: line %q is not hex", name, s)
			}
			f.lines = append(f.lines, x)
		}
		return f
	}
	t.Fatalf("no file %s among the generated ones", name)
	return nil
}

// get returns field name of line k (at most 64 bits).
func (f *vecFile) get(k int, name string) uint64 {
	fd, ok := f.fields[name]
	if !ok {
		panic("no field " + name)
	}
	x := new(big.Int).Rsh(f.lines[k], uint(fd.LSB))
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(fd.Width)), big.NewInt(1))
	return x.And(x, mask).Uint64()
}

// image returns field name of line k as its big-endian bytes.
func (f *vecFile) image(k int, name string) []byte {
	fd := f.fields[name]
	x := new(big.Int).Rsh(f.lines[k], uint(fd.LSB))
	x.And(x, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(fd.Width)), big.NewInt(1)))
	return x.FillBytes(make([]byte, fd.Width/8))
}

// cbytes is b as the C library's byte pointer.
func cbytes(b []byte) *cU8 {
	if len(b) == 0 {
		return nil
	}
	return (*cU8)(unsafe.Pointer(&b[0]))
}

func lastError() string {
	buf := make([]byte, 512)
	n := mkeysim_last_error((*_Ctype_char)(unsafe.Pointer(&buf[0])), cSize(len(buf)))
	return string(buf[:min(int(n), len(buf)-1)])
}

func generate(t *testing.T, o vectors.Options) (*vectors.Output, *vecFile) {
	t.Helper()
	out, err := vectors.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	f := readVecFile(t, out, o.Unit+".hex", out.Manifest.Fields)
	if len(f.lines) != o.Count {
		t.Fatalf("%s: read %d vectors of %d", o.Unit, len(f.lines), o.Count)
	}
	return out, f
}

// expect compares got with the file's expected fields of line k.
func expect(t *testing.T, unit string, f *vecFile, k int, got map[string]uint64) {
	t.Helper()
	for name, g := range got {
		if w := f.get(k, name); g != w {
			t.Fatalf("%s vector %d field %s: the C library gives %#x, the vector file %#x", unit, k, name, g, w)
		}
	}
}

func options(unit string) vectors.Options {
	o := vectors.DefaultOptions()
	o.Unit, o.Count, o.Seed, o.Examples = unit, 3000, 11, "../../examples"
	return o
}

// The live model answers every vector's stimulus, through the exported C
// calls, exactly as the vector files say: for each unit, and for the
// cache under both policies and two geometries.
func TestVectorsThroughABI(t *testing.T) {
	t.Run("protcheck", func(t *testing.T) {
		_, f := generate(t, options("protcheck"))
		for k := range f.lines {
			mkc := f.image(k, "mkc")
			st := mkeysim_protcheck(cbytes(mkc), cI32(f.get(k, "created")), cU32(f.get(k, "key")), cI32(f.get(k, "level")),
				cU64(f.get(k, "va")), cU32(f.get(k, "len")), cU32(f.get(k, "qpn")), cU32(f.get(k, "pd")), cI32(f.get(k, "access_type")))
			if st < 0 {
				t.Fatalf("protcheck vector %d: %d %s", k, st, lastError())
			}
			expect(t, "protcheck", f, k, map[string]uint64{"status": uint64(st)})
		}
	})
	t.Run("mttwalk", func(t *testing.T) {
		_, f := generate(t, options("mttwalk"))
		for k := range f.lines {
			var r cMTT
			st := mkeysim_mtt_step(cU64(f.get(k, "start_addr")), cI32(f.get(k, "log_entity_size")), cU32(f.get(k, "translations_octword_size")),
				cU64(f.get(k, "mtt_handle")), cU64(f.get(k, "va")), cU32(f.get(k, "len")), cU32(f.get(k, "t")), &r)
			if st < 0 {
				t.Fatalf("mttwalk vector %d: %d %s", k, st, lastError())
			}
			expect(t, "mttwalk", f, k, map[string]uint64{"status": uint64(st), "page_index": uint64(r.page_index),
				"entry_addr": uint64(r.entry_addr), "page_offset": uint64(r.page_offset), "piece_len": uint64(r.piece_len)})
		}
	})
	t.Run("klmwalk", func(t *testing.T) {
		_, f := generate(t, options("klmwalk"))
		for k := range f.lines {
			var ents []byte
			for j := range vectors.KLMEntries {
				ents = append(ents, f.image(k, fmt.Sprintf("entry%d", j))...)
			}
			var r cKLM
			st := mkeysim_klm_step(cI32(f.get(k, "fbs")), cI32(f.get(k, "log_entity_size")), cU32(f.get(k, "translations_octword_size")),
				cU64(f.get(k, "d")), cU32(f.get(k, "len")), cbytes(ents), &r)
			if st < 0 {
				t.Fatalf("klmwalk vector %d: %d %s", k, st, lastError())
			}
			expect(t, "klmwalk", f, k, map[string]uint64{"status": uint64(st), "entry_index": uint64(r.entry_index),
				"lower_key": uint64(r.lower_key), "lower_addr": uint64(r.lower_addr), "piece_len": uint64(r.piece_len)})
		}
	})
	for _, g := range []struct {
		sets, ways int
		repl       string
	}{{16, 4, "lru"}, {16, 4, "random"}, {4, 2, "lru"}, {1, 8, "random"}} {
		t.Run(fmt.Sprintf("mptcache-%dx%d-%s", g.sets, g.ways, g.repl), func(t *testing.T) {
			o := options("mptcache")
			o.Sets, o.Ways, o.Replacement = g.sets, g.ways, g.repl
			out, f := generate(t, o)
			params := map[string]uint64{}
			for _, p := range out.Manifest.Parameters {
				params[p.Name] = uint64(p.Value)
			}
			h := mkeysim_cache_new(cU32(params["SETS"]), cU32(params["WAYS"]), cI32(params["REPL_RANDOM"]), cU64(params["PRNG_INIT"]))
			if h <= 0 {
				t.Fatalf("cache_new: %d %s", h, lastError())
			}
			defer mkeysim_delete(h)
			for k := range f.lines {
				var r cCache
				if st := mkeysim_cache_op(h, cI32(f.get(k, "op")), cU32(f.get(k, "index")), &r); st != 0 {
					t.Fatalf("mptcache vector %d: %d %s", k, st, lastError())
				}
				expect(t, "mptcache", f, k, map[string]uint64{"hit": uint64(r.hit), "way": uint64(r.way), "evict": uint64(r.evict),
					"evict_index": uint64(r.evict_index), "count": uint64(r.count)})
			}
		})
	}
	t.Run("top", func(t *testing.T) {
		out, f := generate(t, options("top"))
		// Each world becomes a model instance: its objects created with
		// their images, its ICM image written; the QP of each vector is
		// declared before its access.
		worlds := map[uint64]cHandle{}
		world := func(w uint64) cHandle {
			if h, ok := worlds[w]; ok {
				return h
			}
			h := mkeysim_new(-1)
			if h <= 0 {
				t.Fatalf("new: %d %s", h, lastError())
			}
			worlds[w] = h
			return h
		}
		defer func() {
			for _, h := range worlds {
				mkeysim_delete(h)
			}
		}()
		tables := map[string]*vecFile{}
		for _, tb := range out.Manifest.Tables {
			tables[tb.Name] = readVecFile(t, out, tb.File, tb.Fields)
		}
		mkcs, mem := tables["mkc"], tables["mem"]
		if mkcs == nil || mem == nil {
			t.Fatalf("tables %v: want mkc and mem", out.Manifest.Tables)
		}
		for k := range mkcs.lines {
			img := mkcs.image(k, "mkc")
			if st := mkeysim_load(world(mkcs.get(k, "world")), cU32(mkcs.get(k, "index")), cbytes(img), cI32(mkcs.get(k, "odp"))); st != 0 {
				t.Fatalf("mkc table line %d: load %d %s", k, st, lastError())
			}
		}
		for k := range mem.lines {
			data := mem.image(k, "data")
			if st := mkeysim_icm_write(world(mem.get(k, "world")), cU64(mem.get(k, "addr")), cbytes(data), cSize(len(data))); st != 0 {
				t.Fatalf("mem table line %d: %d %s", k, st, lastError())
			}
		}
		noQP := mkeysim_new(-1)
		defer mkeysim_delete(noQP)
		segs := make([]cSeg, vectors.MaxSegs)
		for k := range f.lines {
			h := world(f.get(k, "world"))
			if f.get(k, "qp_valid") == 1 {
				mkeysim_add_qp(h, cU32(f.get(k, "qpn")), cU32(f.get(k, "qp_pd")), 0)
			} else {
				h = noQP // a model that has no QP
			}
			var r cResult
			clear(segs)
			st := mkeysim_access(h, cU32(f.get(k, "qpn")), cU32(f.get(k, "key")), cU64(f.get(k, "va")), cU32(f.get(k, "len")),
				cI32(f.get(k, "access_type")), &r, &segs[0], cSize(len(segs)))
			if st < 0 {
				t.Fatalf("top vector %d: %d %s", k, st, lastError())
			}
			got := map[string]uint64{"status": uint64(st), "nseg": uint64(r.nseg)}
			if st != 0 {
				got["level"], got["offset"] = uint64(r.level), uint64(r.offset)
			}
			if prm.Status(st) == prm.PageFault {
				got["fault_key"], got["fault_addr"] = uint64(r.fault_key), uint64(r.fault_addr)
			}
			for i, s := range segs[:min(int(r.nseg), len(segs))] {
				got[fmt.Sprintf("seg%d_space", i)] = uint64(s.space)
				got[fmt.Sprintf("seg%d_addr", i)] = uint64(s.addr)
				got[fmt.Sprintf("seg%d_len", i)] = uint64(s.len)
			}
			expect(t, "top", f, k, got)
		}
	})
}
