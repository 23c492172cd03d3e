package tb

import (
	"slices"
	"strings"
	"testing"

	"mkeysim/rtl"
	"mkeysim/rtl/pcie"
	"mkeysim/scenario"
	"mkeysim/tb/stimulus"
)

// roLines runs sc through a new bench of cfg, directly or through the
// wire front, and returns its result lines without their cycles, and the
// bench for its statistics.
func roLines(t *testing.T, cfg rtl.Config, sc *scenario.Scenario, viaWire bool) ([]string, *Bench) {
	t.Helper()
	b := loadedBench(t, cfg, sc)
	var lines []string
	opt := RunOptions{OnResult: func(r *scenario.Result) error {
		c := r.Clone()
		c.HasCycle = false
		var buf strings.Builder
		err := (&scenario.LineWriter{W: &buf}).Write(&c)
		lines = append(lines, buf.String())
		return err
	}}
	var err error
	if viaWire {
		_, err = b.StreamWire(sc.Ops, opt, WireOptions{})
	} else {
		err = b.Stream(sc.Ops, opt)
	}
	if err != nil {
		t.Fatal(err)
	}
	return lines, b
}

// TestRelaxedOrderingResults: Relaxed Ordering changes timing, never a
// result (seed 2.2: the attribute relaxes the ordering of PCIe
// transactions, not the completion semantics of RDMA operations). The
// same workload, its keys differing only in relaxed_ordering_write and
// relaxed_ordering_read (workload.relaxed_ordering draws nothing from
// the random stream), gives the same result lines, cycles aside, with
// the data path on and host memory slow and uneven to accept writes
// (host.write_latency_cycles 100, spread 400, a posted-write buffer of
// 8), directly and through the wire front (whose RDMA WRITEs and READs
// move data through the data path); the golden model agrees with each.
// The runs do differ in what the ordering is about: without RO writes
// are held behind slower ones, with it they pass.
func TestRelaxedOrderingResults(t *testing.T) {
	cfg := rtl.DefaultConfig()
	cfg.Data.Enabled = true
	cfg.Host.WriteLatencyCycles, cfg.Host.WriteLatencySpreadCycles, cfg.Host.WriteBufferEntries = 100, 400, 8
	mixed := stimulus.DefaultWorkload()
	// No QUERY_MKEY: its result shows the key's context, RO bits and all.
	mixed.Keys, mixed.Accesses, mixed.QueryPerMille = 200, 3000, 0
	writes := stimulus.DefaultWorkload()
	writes.Kind, writes.AccessType, writes.AccessBytes, writes.Accesses = stimulus.KindUniform, "REMOTE_WRITE", 8192, 300
	for _, w := range []struct {
		name string
		w    stimulus.Workload
	}{{"mixed", mixed}, {"RDMA WRITEs", writes}} {
		for _, viaWire := range []bool{false, true} {
			var base []string
			for _, ro := range []string{stimulus.RONone, stimulus.ROWrite, stimulus.RORead, stimulus.ROBoth} {
				wl := w.w
				wl.RelaxedOrdering = ro
				sc := stimulus.Generate(wl)
				if !viaWire {
					runBoth(t, w.name+" "+ro, sc, cfg, nil) // the golden model agrees
				}
				lines, b := roLines(t, cfg, sc, viaWire)
				st := b.Host.RC.Stats()
				if ro == stimulus.RONone {
					base = lines
					if st.WritesHeld == 0 || st.ROWrites != 0 || st.ROReads != 0 {
						t.Errorf("%s, wire %v, RO none: %d writes held, %d RO writes, %d RO reads: want writes held and no RO", w.name, viaWire, st.WritesHeld, st.ROWrites, st.ROReads)
					}
				} else {
					wantW := ro == stimulus.ROWrite || ro == stimulus.ROBoth
					// Every write of the RDMA WRITEs has RO; of the mixed
					// workload's, not an atomic's (the model keeps the
					// read-modify-write ordered).
					all := w.name == "mixed" || st.ROWrites == st.DataWrites
					if (st.ROWrites > 0) != wantW || wantW && (st.ROWritesPassed == 0 || !all) {
						t.Errorf("%s, wire %v, RO %s: %d RO writes of %d, %d passed", w.name, viaWire, ro, st.ROWrites, st.DataWrites, st.ROWritesPassed)
					}
					if wantR := ro == stimulus.RORead || ro == stimulus.ROBoth; wantR != (st.ROReads > 0) && st.DataReads > 0 {
						t.Errorf("%s, wire %v, RO %s: %d RO reads of %d", w.name, viaWire, ro, st.ROReads, st.DataReads)
					}
				}
				if !slices.Equal(lines, base) {
					for i := range base {
						if i >= len(lines) || lines[i] != base[i] {
							t.Fatalf("%s, wire %v: RO %s changes result %d:\nnone %s\n%-4s %s", w.name, viaWire, ro, i, base[i], ro, lines[min(i, len(lines)-1)])
						}
					}
					t.Fatalf("%s, wire %v: RO %s gives %d results, none %d", w.name, viaWire, ro, len(lines), len(base))
				}
			}
		}
	}
}

// TestTapRO: what --tlp-out captures (the TLP tap) carries RO exactly on
// the data TLPs of keys with the bit: every data MWr of RDMA WRITEs to
// keys with relaxed_ordering_write, every data MRd of RDMA READ responses
// from keys with relaxed_ordering_read and every completion of those;
// no ICM TLP (traffic class 0), and on the wire the header's Attr[1]
// (byte 2, bit 5) is set.
func TestTapRO(t *testing.T) {
	cfg := rtl.DefaultConfig()
	cfg.Data.Enabled = true
	for _, c := range []struct {
		access, ro string
		want       [pcie.NumTypes]bool // types whose data TLPs have RO
	}{
		{"REMOTE_WRITE", stimulus.ROWrite, [pcie.NumTypes]bool{pcie.MWr: true}},
		{"REMOTE_WRITE", stimulus.RORead, [pcie.NumTypes]bool{}},
		{"REMOTE_READ", stimulus.RORead, [pcie.NumTypes]bool{pcie.MRd: true, pcie.CplD: true}},
		{"REMOTE_READ", stimulus.ROWrite, [pcie.NumTypes]bool{}},
	} {
		w := stimulus.DefaultWorkload()
		w.Kind, w.AccessType, w.AccessBytes, w.Accesses, w.RelaxedOrdering = stimulus.KindUniform, c.access, 8192, 50, c.ro
		var n [pcie.NumTypes]int
		tappedRun(t, cfg, stimulus.Generate(w), func(b *Bench) {
			b.TapTLPs(func(_ uint64, _ bool, tl *pcie.TLP) {
				if tl.TC != pcie.TCData {
					if tl.RO {
						t.Fatalf("%s, RO %s: an ICM TLP with RO: %+v", c.access, c.ro, *tl)
					}
					return
				}
				n[tl.Type]++
				if tl.RO != c.want[tl.Type] {
					t.Fatalf("%s, RO %s: a data %v with RO %v", c.access, c.ro, tl.Type, tl.RO)
				}
				if hdr, err := tl.AppendHeader(nil); err != nil || (hdr[2]&0x20 != 0) != tl.RO {
					t.Fatalf("%s, RO %s: header % x (%v) for RO %v", c.access, c.ro, hdr, err, tl.RO)
				}
			})
		})
		if n[pcie.MWr]+n[pcie.MRd] == 0 {
			t.Errorf("%s, RO %s: no data TLP", c.access, c.ro)
		}
	}
}
