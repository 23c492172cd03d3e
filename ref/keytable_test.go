package ref

import (
	"encoding/binary"
	"flag"
	"maps"
	"math"
	"math/rand/v2"
	"mkeysim/internal/hugemem"
	"runtime"
	"testing"
	"unsafe"

	"pgregory.net/rapid"
)

// noRapidFailFile keeps rapid from writing testdata/rapid fail files into
// the package (as noFailFile does for the package's external tests); the
// seed it prints is enough to reproduce a failure.
func noRapidFailFile(t *testing.T) {
	if f := flag.Lookup("rapid.nofailfile"); f != nil {
		if err := f.Value.Set("true"); err != nil {
			t.Fatal(err)
		}
	}
}

// fataler is what the checks need of *testing.T and *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// checkKeyTable compares t with the map it should hold, and checks the
// invariant that linear probing with backward-shift deletion keeps: every
// key lies in the run that starts at its home slot (no empty slot between
// its home and where it is).
func checkKeyTable(t fataler, kt *keyTable[uint64], want map[uint32]uint64) {
	t.Helper()
	if kt.len() != len(want) {
		t.Fatalf("len %d, want %d", kt.len(), len(want))
	}
	for k, v := range want {
		if got := kt.get(k); got == nil || *got != v {
			t.Fatalf("get(%d) = %v, want %d", k, got, v)
		}
	}
	seen := map[uint32]uint64{}
	kt.each(func(k uint32, v *uint64) {
		if _, dup := seen[k]; dup {
			t.Fatalf("each visits %d twice", k)
		}
		seen[k] = *v
	})
	if !maps.Equal(seen, want) {
		t.Fatalf("each visits %v, want %v", seen, want)
	}
	n := kt.size
	if n > 0 && kt.n*keyTableLoadDen > n*keyTableLoadNum {
		t.Fatalf("%d keys in %d slots: over the load limit", kt.n, n)
	}
	for i := range n {
		s := kt.at(i)
		if !s.used {
			continue
		}
		for j := kt.home(s.key); j != i; j = (j + 1) % n {
			if !kt.at(j).used {
				t.Fatalf("key %d in slot %d: empty slot %d lies between it and its home %d", s.key, i, j, kt.home(s.key))
			}
		}
	}
}

// TestKeyTableAgainstMap runs random puts, gets and deletes on a keyTable
// and a Go map side by side. Keys come from a small set (so that runs
// form, collide and wrap round the table's end) mixed with the extremes
// of the 32-bit range.
func TestKeyTableAgainstMap(t *testing.T) {
	noRapidFailFile(t)
	rapid.Check(t, func(t *rapid.T) {
		var kt keyTable[uint64]
		want := map[uint32]uint64{}
		key := rapid.OneOf(rapid.Uint32Range(0, 40), rapid.SampledFrom([]uint32{0, 1, math.MaxUint32 - 1, math.MaxUint32}), rapid.Uint32())
		for range rapid.IntRange(0, 300).Draw(t, "ops") {
			k := key.Draw(t, "key")
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0, 1:
				v := rapid.Uint64().Draw(t, "val")
				kt.put(k, v)
				want[k] = v
			case 2:
				_, had := want[k]
				if got := kt.del(k); got != had {
					t.Fatalf("del(%d) = %v, want %v", k, got, had)
				}
				delete(want, k)
			case 3:
				v, had := want[k]
				got := kt.get(k)
				if (got != nil) != had || had && *got != v {
					t.Fatalf("get(%d) = %v, want %d, %v", k, got, v, had)
				}
			}
		}
		checkKeyTable(t, &kt, want)
	})
}

// TestKeyTableWrap deletes keys from a run that wraps past the last slot:
// each key left must move back only within its own probe path.
func TestKeyTableWrap(t *testing.T) {
	var kt keyTable[uint64]
	kt.put(0, 0) // the first table: keyTableMin slots
	kt.del(0)
	n := kt.size
	// Keys whose home is the last slot or the one before it.
	var keys []uint32
	for k := uint32(0); len(keys) < 5; k++ {
		if kt.home(k) >= n-2 {
			keys = append(keys, k)
		}
	}
	want := map[uint32]uint64{}
	for i, k := range keys {
		kt.put(k, uint64(i))
		want[k] = uint64(i)
	}
	if kt.size != n {
		t.Fatalf("the table grew to %d slots; the test wants it at %d", kt.size, n)
	}
	for _, k := range keys {
		kt.del(k)
		delete(want, k)
		checkKeyTable(t, &kt, want)
	}
}

// FuzzKeyTable reads the input as operations (a byte: put, get or delete;
// then a key from a small set or four bytes of key) on a keyTable and a map.
func FuzzKeyTable(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 2, 1, 1, 2})
	f.Add([]byte{4, 0xff, 0xff, 0xff, 0xff, 0, 0, 6, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var kt keyTable[uint64]
		want := map[uint32]uint64{}
		for i := 0; i+1 < len(ops); i += 2 {
			op, k := ops[i], uint32(ops[i+1])
			if op&4 != 0 && i+5 < len(ops) {
				k = binary.LittleEndian.Uint32(ops[i+1:])
				i += 3
			}
			switch op % 4 {
			case 0, 1:
				kt.put(k, uint64(i))
				want[k] = uint64(i)
			case 2:
				if _, had := want[k]; kt.del(k) != had {
					t.Fatalf("del(%d) = %v, want %v", k, !had, had)
				}
				delete(want, k)
			case 3:
				if v, had := want[k]; (kt.get(k) != nil) != had || had && *kt.get(k) != v {
					t.Fatalf("get(%d) disagrees with the map", k)
				}
			}
		}
		checkKeyTable(t, &kt, want)
	})
}

// TestKeyTableSequentialKeys: consecutive keys, as MKey indices mostly are,
// spread by Fibonacci hashing so that nearly every key sits in its home
// slot, whatever the table's size.
func TestKeyTableSequentialKeys(t *testing.T) {
	var kt keyTable[uint64]
	want := map[uint32]uint64{}
	for k := range uint32(100_000) {
		kt.put(k, uint64(k))
		want[k] = uint64(k)
	}
	checkKeyTable(t, &kt, want)
	away := 0
	for i := range kt.size {
		if s := kt.at(i); s.used && kt.home(s.key) != i {
			away++
		}
	}
	if away > kt.len()/10 {
		t.Errorf("%d of %d keys lie away from their home slot", away, kt.len())
	}
	// Deleting every other key keeps the rest reachable.
	for k := uint32(0); k < 100_000; k += 2 {
		kt.del(k)
		delete(want, k)
	}
	checkKeyTable(t, &kt, want)
}

// TestKeyTableManyChunks runs a long random mix of puts and deletes over
// enough keys to span many chunks, checking the table against a map as it
// grows (each growth rehashes across chunks in place).
func TestKeyTableManyChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var kt keyTable[uint64]
	want := map[uint32]uint64{}
	for step := range 200_000 {
		k := rng.Uint32N(60_000)
		if rng.Uint32N(4) == 0 {
			k = rng.Uint32()
		}
		if rng.Uint32N(3) == 0 {
			kt.del(k)
			delete(want, k)
		} else {
			kt.put(k, uint64(step))
			want[k] = uint64(step)
		}
		if step%50_000 == 0 {
			checkKeyTable(t, &kt, want)
		}
	}
	checkKeyTable(t, &kt, want)
	if len(kt.chunks) < 10 {
		t.Fatalf("%d chunks: the test wants many", len(kt.chunks))
	}
}

// TestKeyTableGrowthGarbage: growing to 300 000 keys allocates little
// more than the table it ends with, since chunks are never copied.
func TestKeyTableGrowthGarbage(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var kt keyTable[Object]
	for k := range uint32(300_000) {
		kt.put(k, Object{})
	}
	runtime.ReadMemStats(&after)
	// The table: its chunks one by one up to a slab's worth, then slabs
	// on huge pages (with their slack, never touched), the last one
	// perhaps not all in use yet.
	slabs := (len(kt.chunks) - slabChunks + slabChunks - 1) / slabChunks
	table := uint64(slabChunks*chunkSlots)*uint64(unsafe.Sizeof(slot[Object]{})) +
		uint64(slabs)*uint64(hugemem.Bytes[slot[Object]](slabChunks*chunkSlots))
	if got := after.TotalAlloc - before.TotalAlloc; got > table+table/8 {
		t.Errorf("growing to %d keys allocated %d MB for a table of %d MB", kt.len(), got>>20, table>>20)
	}
}
