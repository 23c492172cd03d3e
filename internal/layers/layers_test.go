package layers

import (
	"encoding/json"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// allowed is, for every package of the module, the module's packages it
// may import (in its non-test files), without the "mkeysim/" prefix. A
// package not listed may not exist: a new one must say where it sits.
var allowed = map[string][]string{
	"prm": nil,
	// The host IOMMU's I/O page tables: a format and its walk, below
	// ref (the golden translation) and rtl (the clocked walker).
	"pagetable": nil,
	"vcd":       nil,
	"version":   nil,
	"cover":     {"prm"},
	// scenario checks an iommu section's mappings with pagetable; ref
	// translates through them (issue 36).
	"scenario": {"prm", "pagetable"},
	"ref":      {"prm", "scenario", "cover", "pagetable", "internal/hugemem"},

	"rtl/sim":       nil,
	"rtl/bus":       {"prm", "rtl/sim"},
	"rtl/linecache": {"rtl/sim"},
	// The array of a cache of translated ranges (the ATC's, the IOTLB's),
	// under linecache's replacement policies.
	"rtl/rangecache": {"rtl/linecache"},
	// The TLP model; prm for the ATS formats' field tables (the
	// Translation Completion entries, the Invalidate messages), as
	// rtl/bus takes prm's formats.
	"rtl/pcie": {"prm", "rtl/sim"},
	// The host's IOMMU: host side, beside rtl/pcie; reads the I/O page
	// tables and keeps its IOTLB in a rangecache.
	// Its gate (the root complex's translation stage) takes the TLPs of
	// rtl/pcie.
	// Its ATS endpoint (HostPort) builds and reads the Translation
	// Completion entries and Invalidate messages through prm's tables,
	// as rtl/pcie does.
	"rtl/iommu": {"prm", "pagetable", "rtl/sim", "rtl/bus", "rtl/pcie", "rtl/linecache", "rtl/rangecache"},
	// What the two walkers share (their contexts' states and fetch
	// slots, their line cache, read port, invalidations and cuts): above
	// the shared packages, below the walkers, which import it as they
	// import rtl/linecache.
	"rtl/walk": {"rtl/sim", "rtl/bus", "rtl/pcie", "rtl/linecache"},
	// The units: the shared rtl packages, prm, and cover (the coverage
	// points they hit), never each other.
	"rtl/mptcache":  units,
	"rtl/protcheck": units,
	"rtl/mttwalk":   units,
	"rtl/klmwalk":   units,
	"rtl/dma":       units,
	"rtl/sq":        units,
	"rtl/atc":       units,
	// The top: the one package that imports the units.
	// It holds the host IOMMU's parameters (iommu.*) as it holds
	// rtl/pcie's, and the I/O page tables' address width.
	"rtl":                   append(slices.Clone(units), "scenario", "pagetable", "rtl/iommu", "rtl/atc", "rtl/mptcache", "rtl/protcheck", "rtl/mttwalk", "rtl/klmwalk", "rtl/dma", "rtl/sq"),
	"rtl/internal/chantest": {"prm", "rtl/sim", "rtl/bus", "rtl/pcie", "rtl/linecache"},

	// tb is the bench in its environment (its fronts, replay, figures):
	// it knows the top, the host side (rtl/pcie) and rtl/sim, never a
	// unit (it learns about one through what the unit declares), and
	// takes its operations from tb/stimulus.
	// It builds the host side: the links and root complex (rtl/pcie) and
	// the host IOMMU with its I/O page tables (rtl/iommu, pagetable).
	// It wires the host's ATS translation agent to its endpoint on the
	// link with rtl/bus's ATS payloads (shared types, not a unit).
	"tb": {"prm", "scenario", "pagetable", "rtl", "rtl/sim", "rtl/bus", "rtl/pcie", "rtl/iommu", "tb/wire", "tb/host", "tb/stimulus", "tb/stats", "internal/outfile"},
	// A run's statistics: the figures the units' counters give, and their
	// summary and JSON; no bench.
	"tb/stats": {"rtl", "rtl/sim"},
	// What goes into the model (workloads, trace files, feeds): formats
	// and the top's configuration, no bench.
	"tb/stimulus": {"prm", "scenario", "rtl"},
	// What checks what comes out: the scoreboard and the isolation
	// oracle, against ref.
	"tb/score": {"prm", "scenario", "ref", "tb/stimulus"},
	// The waveform: a bench's signals as the units declare them, above
	// the bench it attaches to.
	"tb/wave": {"rtl", "rtl/sim", "tb", "vcd", "internal/outfile"},
	// The host of the host front: WQEs and CQEs in host memory.
	"tb/host": {"prm", "scenario", "rtl", "rtl/pcie"},
	// The wire (RoCEv2 packets as gopacket layers, and the requester and
	// responder that turn scenario operations into them and back) and the
	// PCIe capture format stand alone: formats, no model.
	"tb/wire":   {"prm", "scenario", "internal/outfile"},
	"tb/tlpcap": {"rtl/pcie"},
	"vectors":   {"prm", "scenario", "ref", "rtl", "version", "internal/outfile"},
	// The live model for co-simulation: the vectors' oracles and ref
	// behind handles; the C library exports it and nothing else.
	"live":             {"prm", "ref", "scenario", "vectors"},
	"cosim/libmkeysim": {"live", "prm", "ref", "vectors"},
	// config reads the older layout's cache sizes into the walkers'
	// line caches' own configuration (rtl/linecache).
	"config":      {"rtl", "tb/stimulus", "rtl/linecache"},
	"sweep":       {"config", "tb", "tb/stimulus", "tb/score", "tb/stats", "ref", "scenario", "internal/outfile"},
	"cmd/mkeysim": {"config", "cover", "prm", "ref", "rtl", "rtl/pcie", "scenario", "sweep", "tb", "tb/stimulus", "tb/score", "tb/wave", "tb/tlpcap", "tb/wire", "vcd", "vectors", "version", "internal/outfile"},

	"examples":           nil,
	"scripts":            nil,
	"scripts/benchtable": nil,
	"scripts/cglayers":   nil,
	"scripts/vcddiff":    {"vcd"},
	// Draws finished sweeps in one figure with the sweep package's plots.
	"scripts/overlay":   {"sweep"},
	"internal/tooltest": nil,
	"internal/layers":   nil,
	"internal/hugemem":  nil,
	"internal/memlimit": nil,
	"internal/bounded":  nil,
	// Every file the tool writes goes through outfile; tinyfs is the
	// full file system of the tests that check it.
	"internal/outfile":   nil,
	"internal/tinyfs":    nil,
	"internal/querytest": {"prm", "scenario", "internal/memlimit"},
}

var units = []string{"prm", "cover", "rtl/sim", "rtl/bus", "rtl/linecache", "rtl/rangecache", "rtl/pcie", "rtl/walk"}

// TestImportRules lists every package of the module with go list and
// checks each import of the module's own against allowed.
func TestImportRules(t *testing.T) {
	// Read the module's directories, so that the test cache knows a new
	// package (go list, run below, is invisible to it).
	filepath.WalkDir("../..", func(string, fs.DirEntry, error) error { return nil })
	out, err := exec.Command("go", "list", "-json", "mkeysim/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(p.ImportPath, "mkeysim/")
		if p.ImportPath == "mkeysim" {
			name = "."
		}
		ok, listed := allowed[name]
		if !listed {
			t.Errorf("package %s is not placed in the layers (internal/layers: allowed)", p.ImportPath)
			continue
		}
		seen++
		for _, imp := range p.Imports {
			dep, mine := strings.CutPrefix(imp, "mkeysim/")
			if !mine {
				continue
			}
			if !slices.Contains(ok, dep) {
				t.Errorf("%s imports %s, which architecture.md does not allow (it may import %v)", name, dep, ok)
			}
		}
	}
	if seen < 20 {
		t.Fatalf("go list found %d packages of the module; want them all", seen)
	}
}
