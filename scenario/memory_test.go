package scenario_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"
	"unsafe"

	"mkeysim/scenario"
)

// writeBigScenario writes a scenario of about size bytes into dir, laid out
// as scenario.md's example (one op a line, hex strings for keys and
// addresses): 64 QPs, 64 MTT MKeys of 16 entries, then access ops with a
// UMR, an invalidation or a query every 1000th op. Its ops array comes
// before qps, so that the parser cannot rely on key order. It returns the
// path and the number of ops.
func writeBigScenario(t testing.TB, dir string, size int) (string, int) {
	t.Helper()
	path := filepath.Join(dir, "big.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	types := []string{"LOCAL_READ", "LOCAL_WRITE", "REMOTE_READ", "REMOTE_WRITE", "REMOTE_ATOMIC"}
	n, ops := 0, 0
	put := func(b []byte) {
		w.Write(b)
		n += len(b)
	}
	put([]byte("{\n  \"ops\": [\n"))
	var b []byte
	for n < size-64<<10 {
		b = b[:0]
		if ops > 0 {
			b = append(b, ",\n"...)
		}
		qpn := 1 + r.IntN(64)
		key := uint64(16+r.IntN(64))<<8 | uint64(r.IntN(256))
		switch {
		case ops%1000 == 999:
			b = fmt.Appendf(b, `    {"op": "umr", "qpn": %d, "key": "%#x", "check_free": 2, "mask": ["rw", "lr"], "mkc": {"rw": 1, "lr": 1}}`, qpn, key)
		case ops%1000 == 499:
			b = fmt.Appendf(b, `    {"op": "local_invalidate", "qpn": %d, "key": "%#x"}`, qpn, key)
		case ops%1000 == 249:
			b = fmt.Appendf(b, `    {"op": "query_mkey", "index": %d}`, key>>8)
		default:
			b = append(b, `    {"op": "access", "qpn": `...)
			b = strconv.AppendInt(b, int64(qpn), 10)
			b = append(b, `, "key": "0x`...)
			b = strconv.AppendUint(b, key, 16)
			b = append(b, `", "addr": "0x`...)
			b = strconv.AppendUint(b, 0x7f0000000000+r.Uint64N(1<<16), 16)
			b = append(b, `", "len": `...)
			b = strconv.AppendInt(b, int64(r.IntN(8192)), 10)
			b = append(b, `, "type": "`...)
			b = append(b, types[r.IntN(len(types))]...)
			b = append(b, `"}`...)
		}
		put(b)
		ops++
	}
	put([]byte("\n  ],\n  \"qps\": [\n"))
	for q := 1; q <= 64; q++ {
		sep := ",\n"
		if q == 64 {
			sep = "\n"
		}
		put(fmt.Appendf(nil, "    {\"qpn\": %d, \"pd\": 5, \"type\": \"REG_UMR\"}%s", q, sep))
	}
	put([]byte("  ],\n  \"mkeys\": [\n"))
	for k := 0; k < 64; k++ {
		b = fmt.Appendf(nil, `    {"index": %d, "variant": 0, "mkc": {"access_mode": "MTT", "pd": 5, "start_addr": "0x7f0000000000", "len": 65536, "log_entity_size": 12, "lr": 1, "lw": 1, "rr": 1, "rw": 1, "a": 1, "umr_en": 1}, "mtt": [`, 16+k)
		for e := 0; e < 16; e++ {
			if e > 0 {
				b = append(b, ", "...)
			}
			b = fmt.Appendf(b, `{"ptag": "%#x"}`, 0x100000+(k*16+e)*0x1000)
		}
		b = append(b, "]}"...)
		if k < 63 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		put(b)
	}
	put([]byte("  ]\n}\n"))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path, ops
}

// heapPeak samples the bytes of live and not yet swept heap objects
// (runtime/metrics, which does not stop the world) until stop is called,
// and returns the highest value seen.
func heapPeak() (stop func() uint64) {
	const name = "/memory/classes/heap/objects:bytes"
	sample := []metrics.Sample{{Name: name}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: name}}
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			default:
				time.Sleep(100 * time.Microsecond)
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		metrics.Read(sample)
		return max(peak, sample[0].Value.Uint64())
	}
}

func heapNow() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestParseMemory parses a 100 MB scenario made mostly of access ops and
// bounds the peak heap that Parse adds to the file's bytes: at most one
// byte per byte of file. Nearly all of it is the Scenario itself, one Op
// (72 bytes) an operation against about 112 bytes of file (0.65 bytes per
// byte); the test also holds the Scenario to its ops and a little (no
// spare capacity, nothing else kept). Measured on a 2-CPU machine: the
// decoder Parse used before peaked at 16-20 bytes per byte (30 allocated)
// and took 5.5-6.5 s; Parse peaks at 0.5 in about 1.5 s. ReadFile adds
// the file's own bytes.
func TestParseMemory(t *testing.T) {
	const bound = 1.0 // peak heap added by Parse, bytes per byte of file
	path, nops := writeBigScenario(t, t.TempDir(), 100<<20)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	size := float64(len(data))
	base := heapNow()
	stop := heapPeak()
	start := time.Now()
	sc, err := scenario.Parse(data)
	elapsed := time.Since(start)
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	kept := heapNow()
	opsBytes := float64(len(sc.Ops)) * float64(unsafe.Sizeof(scenario.Op{}))
	t.Logf("%d bytes, %d ops (%.1f bytes an op; an Op is %d bytes): parse %v (%.0f MB/s), peak heap %.2f bytes per file byte, scenario %.2f",
		len(data), nops, size/float64(nops), unsafe.Sizeof(scenario.Op{}), elapsed.Round(time.Millisecond), size/elapsed.Seconds()/1e6,
		float64(peak-base)/size, float64(kept-base)/size)
	if len(sc.Ops) != nops || len(sc.QPs) != 64 || len(sc.MKeys) != 64 {
		t.Fatalf("parsed %d ops, %d QPs, %d MKeys; want %d, 64, 64", len(sc.Ops), len(sc.QPs), len(sc.MKeys), nops)
	}
	if got := float64(peak-base) / size; got > bound {
		t.Errorf("peak heap while parsing: %.2f bytes per file byte, want at most %.1f", got, bound)
	}
	if got := float64(kept - base); got > opsBytes+size/16 {
		t.Errorf("the Scenario keeps %.0f bytes, want its ops (%.0f) and little more", got, opsBytes)
	}
	runtime.KeepAlive(sc)
	runtime.KeepAlive(data)
}

// accessOps is a scenario of n access ops.
func accessOps(n int) []byte {
	b := []byte(`{"qps": [{"qpn": 1, "pd": 5}], "ops": [`)
	for i := range n {
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = fmt.Appendf(b, `{"op": "access", "qpn": 1, "key": "0x%x", "addr": "0x%x", "len": %d, "type": "REMOTE_READ"}`, 0x1000+i, 0x7f0000000000+i*64, i%4096)
	}
	return append(b, "]}"...)
}

// TestParseAllocs: parsing allocates nothing per access op, only the
// Scenario and its slices.
func TestParseAllocs(t *testing.T) {
	small, big := accessOps(1000), accessOps(4000)
	count := func(data []byte) float64 {
		return testing.AllocsPerRun(5, func() {
			if _, err := scenario.Parse(data); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, b := count(small), count(big); b != a || a > 10 {
		t.Errorf("%v allocations for 1000 access ops, %v for 4000; want the same few", a, b)
	}
}
