package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fidelitySection is one "## N. ..." section of docs/fidelity.md: its
// text and the sweep command of its sh block, if it has one.
type fidelitySection struct {
	text  string
	sweep []string // the first command's words after "mkeysim"
	// sweeps are every mkeysim sweep command of the sh block, in order
	// (sweep is the first).
	sweeps [][]string
}

// fidelitySections reads docs/fidelity.md's sections by number.
func fidelitySections(t *testing.T) map[int]fidelitySection {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docs", "fidelity.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]fidelitySection{}
	for _, part := range strings.Split(string(raw), "\n## ")[1:] {
		num, _, ok := strings.Cut(part, ".")
		n, err := strconv.Atoi(num)
		if !ok || err != nil {
			continue
		}
		s := fidelitySection{text: part}
		s.sweeps = sweepCommands(part)
		if len(s.sweeps) > 0 {
			s.sweep = s.sweeps[0]
		}
		out[n] = s
	}
	return out
}

// sweepRows runs a section's sweep command, its --out in a temporary
// directory, and returns sweep.csv's rows as maps by column.
func sweepRows(t *testing.T, s fidelitySection) []map[string]string {
	t.Helper()
	if s.sweep == nil {
		t.Fatal("the section has no mkeysim sweep command")
	}
	return commandRows(t, s.sweep)
}

// commandRows runs one mkeysim sweep command (its words after
// "mkeysim"), its --out in a temporary directory, and returns sweep.csv's
// rows as maps by column.
func commandRows(t *testing.T, command []string) []map[string]string {
	t.Helper()
	args := append([]string(nil), command...)
	for i := range args {
		if args[i] == "--out" && i+1 < len(args) {
			args[i+1] = filepath.Join(t.TempDir(), "sweep")
		}
	}
	code, _, stderr := runCLI(args...)
	if code != 0 {
		t.Fatalf("mkeysim %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	recs := readCSVFile(t, filepath.Join(args[len(args)-1], "sweep.csv"))
	var rows []map[string]string
	for _, r := range recs[1:] {
		row := map[string]string{}
		for i, h := range recs[0] {
			row[h] = r[i]
		}
		rows = append(rows, row)
	}
	return rows
}

// figure returns column col of the row whose column key is value.
func figure(t *testing.T, rows []map[string]string, key, value, col string) float64 {
	t.Helper()
	for _, r := range rows {
		if r[key] == value {
			f, err := strconv.ParseFloat(r[col], 64)
			if err != nil {
				t.Fatalf("sweep.csv %s=%s: %s %q: %v", key, value, col, r[col], err)
			}
			return f
		}
	}
	t.Fatalf("sweep.csv: no row with %s=%s", key, value)
	return 0
}

// TestFidelityDoc runs the sweeps of docs/fidelity.md with the commands
// it gives (and docs/data-path.md's, which its section 5 quotes) and the
// hand-counted traces of its section 6, and checks that the numbers the
// pages quote are the ones they make now: architects size designs by
// them, and a change of the model that moves one must change the page
// too.
func TestFidelityDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pages' sweeps")
	}
	secs := fidelitySections(t)
	// says fails unless the section's text quotes s (line breaks read as
	// spaces), which the run made from what.
	says := func(n int, s, what string) {
		t.Helper()
		if !strings.Contains(strings.Join(strings.Fields(secs[n].text), " "), s) {
			t.Errorf("docs/fidelity.md section %d does not say %q, which the run gives for %s", n, s, what)
		}
	}
	pct := func(f float64, prec int) string { return strconv.FormatFloat(100*f, 'f', prec, 64) + " %" }

	t.Run("reach", func(t *testing.T) {
		rows := sweepRows(t, secs[1])
		hit := func(fp, page string) float64 {
			var r []map[string]string
			for _, row := range rows {
				if row["workload.page_bytes"] == page {
					r = append(r, row)
				}
			}
			return figure(t, r, "workload.footprint_bytes", fp, "mtt_cache.hit_rate")
		}
		for _, c := range []struct{ fp, mib string }{{"1048576", "1"}, {"8388608", "8"}} {
			says(1, pct(hit(c.fp, "4096"), 1)+" at "+c.mib+" MiB", "4 KiB pages at "+c.mib+" MiB")
		}
		for _, fp := range []string{"16777216", "33554432", "67108864", "134217728", "268435456"} {
			says(1, pct(hit(fp, "4096"), 1), "4 KiB pages at "+fp+" bytes")
		}
		// Section 2: with 2 MiB pages the curve stays flat.
		for _, r := range rows {
			if r["workload.page_bytes"] == "2097152" {
				if h, _ := strconv.ParseFloat(r["mtt_cache.hit_rate"], 64); h < 0.99 {
					t.Errorf("section 2 says the 2 MiB curve stays flat; at %s bytes the MTT hit rate is %.3f", r["workload.footprint_bytes"], h)
				}
			}
		}
	})

	t.Run("mr-knee", func(t *testing.T) {
		rows := sweepRows(t, secs[3])
		mkc := func(mrs string) float64 { return figure(t, rows, "workload.mrs", mrs, "mkc_cache.hit_rate") }
		mtt := func(mrs string) float64 { return figure(t, rows, "workload.mrs", mrs, "mtt_cache.hit_rate") }
		says(3, "512 regions ("+pct(mkc("512"), 0)+")", "the MKC at 512 regions")
		says(3, fmt.Sprintf("(%s, %s, %s, %s)", pct(mkc("1024"), 0), pct(mkc("2048"), 0), pct(mkc("4096"), 0), pct(mkc("8192"), 0)),
			"the MKC from 1024 to 8192 regions")
		says(3, fmt.Sprintf("(%s at 1024, %s at 2048, %s at 4096)", pct(mtt("1024"), 0), pct(mtt("2048"), 0), pct(mtt("4096"), 0)),
			"the MTT at 1024, 2048 and 4096 regions")
	})

	t.Run("walkers", func(t *testing.T) {
		rows := sweepRows(t, secs[4])
		tpc := func(w string) float64 { return figure(t, rows, "mtt.walkers", w, "translations_per_cycle") }
		var low []string
		for _, w := range []string{"1", "2", "4", "8", "16"} {
			low = append(low, strconv.FormatFloat(tpc(w), 'f', 4, 64))
		}
		says(4, strings.Join(low, ", ")+" and "+strconv.FormatFloat(tpc("32"), 'f', 3, 64)+" translations a cycle", "1 to 32 walkers")
		says(4, "At 64 walkers it stays at "+strconv.FormatFloat(tpc("64"), 'f', 3, 64), "64 walkers")
		if tags := figure(t, rows, "mtt.walkers", "64", "pcie.requester.max_tags_in_use"); tags != 32 {
			t.Errorf("section 4 says 64 walkers hold all 32 PCIe tags; max_tags_in_use is %v", tags)
		}
	})

	// Section 7: the IOTLB cliff through the host IOMMU; its table is the
	// sweep's, row by row, and its text quotes the flat part and the fall.
	t.Run("iotlb-cliff", func(t *testing.T) {
		rows := sweepRows(t, secs[7])
		at := func(fp, walkers, col string) float64 {
			var r []map[string]string
			for _, row := range rows {
				if row["iommu.walkers"] == walkers {
					r = append(r, row)
				}
			}
			return figure(t, r, "workload.footprint_bytes", fp, col)
		}
		const first = "4096"
		for fp := uint64(4096); fp <= 64<<20; fp *= 2 {
			f := strconv.FormatUint(fp, 10)
			size := fmt.Sprintf("%d KiB", fp>>10)
			if fp >= 1<<20 {
				size = fmt.Sprintf("%d MiB", fp>>20)
			}
			hits, misses := at(f, "4", "iommu.iotlb_hits"), at(f, "4", "iommu.iotlb_misses")
			of := func(w string) float64 { return at(f, w, "throughput_maps") / at(first, w, "throughput_maps") }
			row := fmt.Sprintf("| %s | %.1f %% | %.2f | %.1f | %.2f | %.2f | %.2f | %.2f |", size, 100*hits/(hits+misses),
				at(f, "4", "iommu.levels_read")/max(at(f, "4", "iommu.walks"), 1), at(f, "4", "throughput_maps"),
				of("4"), of("1"), of("2"), of("8"))
			says(7, row, "the table's row of the "+size+" window")
		}
		says(7, fmt.Sprintf("flat at %.1f M reads a second", at(first, "4", "throughput_maps")), "the flat part")
		if r := at("33554432", "4", "throughput_maps") / at(first, "4", "throughput_maps"); r < 0.25 || r > 0.42 {
			t.Errorf("section 7 says the throughput falls to about a third; at 32 MiB it is %.2f of the flat part", r)
		}
	})

	// Section 8: the same window with ATS on, over atc.entries, beside the
	// curve without ATS; its table is the two sweeps', row by row, and its
	// text quotes what bounds the curves (the third sweep: the MSHRs).
	t.Run("atc-cliff", func(t *testing.T) {
		if n := len(secs[8].sweeps); n != 3 {
			t.Fatalf("section 8 has %d mkeysim sweep commands; want 3 (ATS over atc.entries, no ATS, atc.mshrs)", n)
		}
		ats, none, mshrs := commandRows(t, secs[8].sweeps[0]), commandRows(t, secs[8].sweeps[1]), commandRows(t, secs[8].sweeps[2])
		pick := func(rows []map[string]string, key, value string) []map[string]string {
			var r []map[string]string
			for _, row := range rows {
				if row[key] == value {
					r = append(r, row)
				}
			}
			return r
		}
		at := func(fp, entries, col string) float64 {
			return figure(t, pick(ats, "atc.entries", entries), "workload.footprint_bytes", fp, col)
		}
		for fp := uint64(4096); fp <= 64<<20; fp *= 2 {
			f := strconv.FormatUint(fp, 10)
			size := fmt.Sprintf("%d KiB", fp>>10)
			if fp >= 1<<20 {
				size = fmt.Sprintf("%d MiB", fp>>20)
			}
			row := fmt.Sprintf("| %s | %.1f |", size, figure(t, none, "workload.footprint_bytes", f, "throughput_maps"))
			for _, e := range []string{"16", "64", "256", "1024", "4096"} {
				row += fmt.Sprintf(" %.1f |", at(f, e, "throughput_maps"))
			}
			says(8, row, "the table's row of the "+size+" window")
		}
		// The text's figures: the round trips of a hit with and without
		// ATS, a Translation Request's (that hits the IOTLB, and that
		// walks), the warm-up's misses, and the walkers and MSHRs busy.
		rt := func(rows []map[string]string) string {
			return fmt.Sprintf("%.1f", figure(t, rows, "workload.footprint_bytes", "4096", "data.request_cycles")/
				figure(t, rows, "workload.footprint_bytes", "4096", "data.reads"))
		}
		says(8, "Without ATS a read that hits the IOTLB takes "+rt(none)+" cycles", "the no-ATS read's round trip")
		says(8, "that hits the ATC takes "+rt(pick(ats, "atc.entries", "16"))+" cycles", "the ATS read's round trip")
		says(8, fmt.Sprintf("(%.1f with the 16-entry ATC at 256 KiB, where every one hits: `iommu.iotlb_hit_rate` %.3f)",
			at("262144", "16", "atc.mshr_cycles")/at("262144", "16", "atc.translation_requests"), at("262144", "16", "iommu.iotlb_hit_rate")),
			"a Translation Request that hits the IOTLB")
		hits, misses := at("16777216", "4096", "atc.hits"), at("16777216", "4096", "atc.misses")
		says(8, fmt.Sprintf("%.1f %% hits, %.1f M", 100*hits/(hits+misses), at("16777216", "4096", "throughput_maps")), "4096 entries at 16 MiB")
		says(8, fmt.Sprintf("each of the %.0f misses", misses), "4096 entries at 16 MiB")
		const floor = "16777216" // 16 MiB, 64 entries: nearly every read misses
		says(8, fmt.Sprintf("`atc.translation_requests` %.1f", at(floor, "64", "atc.mshr_cycles")/at(floor, "64", "atc.translation_requests")),
			"the Translation Request's round trip at the floor")
		for _, e := range []string{"256", "1024", "4096"} {
			for _, r := range pick(ats, "atc.entries", e) {
				if h, _ := strconv.ParseFloat(r["iommu.iotlb_hit_rate"], 64); h > 0.0005 {
					t.Errorf("section 8 says the IOTLB behind an ATC of 256 entries or more hits nothing; at %s bytes, %s entries its hit rate is %v",
						r["workload.footprint_bytes"], e, h)
				}
			}
		}
		says(8, fmt.Sprintf("(`iommu.mean_walkers_in_use` %.2f, `atc.mean_mshrs_in_use` %.2f)",
			at(floor, "64", "iommu.mean_walkers_in_use"), at(floor, "64", "atc.mean_mshrs_in_use")), "the walkers and MSHRs busy at the floor")
		m := func(entries, n string) float64 {
			return figure(t, pick(mshrs, "atc.entries", entries), "atc.mshrs", n, "throughput_maps")
		}
		says(8, fmt.Sprintf("%.1f, %.1f and %.1f M reads a second with 4, 8 and 16 MSHRs", m("64", "4"), m("64", "8"), m("64", "16")),
			"64 entries at 16 MiB with 4, 8 and 16 MSHRs")
		says(8, fmt.Sprintf("%.1f M at 16 MiB", m("1024", "8")), "1024 entries at 16 MiB with 8 MSHRs")
		for _, r := range ats {
			if w := r["iommu.gate.window_stall_cycles"]; w != "0" {
				t.Errorf("section 8 says the gate's window never waits with ATS; at %s bytes, %s entries it waited %s cycles",
					r["workload.footprint_bytes"], r["atc.entries"], w)
			}
		}
	})

	// Section 5 quotes the data path's plateau, whose sweep
	// docs/data-path.md gives.
	t.Run("data-path", func(t *testing.T) {
		raw, err := os.ReadFile(filepath.Join(repoRoot, "docs", "data-path.md"))
		if err != nil {
			t.Fatal(err)
		}
		_, plateau, _ := strings.Cut(string(raw), "## The read-bound plateau")
		rows := sweepRows(t, fidelitySection{sweep: sweepCommand(plateau)})
		gbps := func(n string) string {
			return strconv.FormatFloat(figure(t, rows, "data.outstanding", n, "throughput_gbps"), 'f', 1, 64) + " GB/s"
		}
		busy := pct(figure(t, rows, "data.outstanding", "4", "pcie.down.utilization"), 1)
		for _, doc := range []struct {
			name, text string
		}{{"docs/fidelity.md section 5", secs[5].text}, {"docs/data-path.md", plateau}} {
			flat := strings.Join(strings.Fields(doc.text), " ")
			for _, want := range []string{gbps("1"), gbps("64"), busy} {
				if !strings.Contains(flat, want) {
					t.Errorf("%s does not say %q, which the run gives", doc.name, want)
				}
			}
		}
		if g1, g2 := figure(t, rows, "data.outstanding", "1", "throughput_gbps"), figure(t, rows, "data.outstanding", "2", "throughput_gbps"); g2 < 1.9*g1 {
			t.Errorf("docs/data-path.md says two reads double the throughput: %.2f GB/s against %.2f", g2, g1)
		}
	})

	// Section 6 quotes the latencies of two hand-counted traces.
	t.Run("latency", func(t *testing.T) {
		p50 := func(name, fig string) string {
			stats := filepath.Join(t.TempDir(), "stats.json")
			code, _, stderr := runCLI("run", "--quiet", "--stats", stats, "--out", filepath.Join(t.TempDir(), "out.jsonl"),
				filepath.Join(repoRoot, "examples", "counters", name+".json"))
			if code != 0 {
				t.Fatalf("run %s: exit %d: %s", name, code, stderr)
			}
			var doc struct {
				Latency map[string]float64 `json:"latency_cycles"`
			}
			readJSON(t, stats, &doc)
			return strconv.FormatFloat(doc.Latency[fig], 'f', -1, 64)
		}
		hit, both, mtt := p50("all-hit", "p50"), p50("all-hit", "max"), p50("mtt-merged-misses", "p50")
		says(6, "takes "+hit+" cycles (`all-hit`, `latency_cycles.p50` "+hit+")", "an access that hits both caches")
		says(6, "(`mtt-merged-misses`, p50 "+mtt+")", "an access that misses the MTT cache")
		says(6, "(`all-hit`'s first access, `latency_cycles.max` "+both+")", "an access that misses both caches")
	})
}

// sweepCommand returns the words after "mkeysim" of the first mkeysim
// sweep command in the first sh block of text.
func sweepCommand(text string) []string {
	if c := sweepCommands(text); len(c) > 0 {
		return c[0]
	}
	return nil
}

// sweepCommands returns the words after "mkeysim" of every mkeysim sweep
// command in the first sh block of text, in order.
func sweepCommands(text string) [][]string {
	_, block, _ := strings.Cut(text, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var out [][]string
	for _, line := range strings.Split(strings.ReplaceAll(block, "\\\n", " "), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "mkeysim" && f[1] == "sweep" {
			out = append(out, f[1:])
		}
	}
	return out
}
