package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"mkeysim/config"
)

// Spec is a sweep written down (mkeysim sweep SWEEP.toml): a
// configuration file, every parameter as in 'mkeysim config --defaults',
// with a [sweep] table that says what to vary and how:
//
//	[workload]
//	kind = "uniform"
//
//	[sweep]
//	vary = ["mtt.cache.entries=512..8192*2", "mtt.cache.replacement=lru,plru"]
//	seeds = 3              # optional (--seeds)
//	out = "out/policy"     # optional (--out), relative to the file
//	scenario = "s.json"    # optional (--scenario), relative to the file
//
// Each vary item is a --vary: the grid is their product, the first
// varying slowest.
type Spec struct {
	Path string
	// Config is the parameters the file sets, over the defaults, read but
	// not validated (config.Read): the sweep's points are, once their
	// axes' values are set (Sweep.Validate).
	Config   config.Config
	Vary     []string
	Seeds    int    // 0: not given
	Out      string // "" when not given; else relative to the working directory
	Scenario string // the same
}

// sweepTable is the [sweep] table of a sweep file.
type sweepTable struct {
	Sweep struct {
		Vary     []string `toml:"vary"`
		Seeds    int      `toml:"seeds"`
		Out      string   `toml:"out"`
		Scenario string   `toml:"scenario"`
	} `toml:"sweep"`
}

// ReadSpec reads a sweep file. Errors name the file and the key. Its
// parameters are read as config.Read reads them, not validated.
func ReadSpec(path string) (*Spec, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, a...))
	}
	cfg, err := config.Read(path, "sweep")
	if err != nil {
		if os.IsNotExist(err) {
			return nil, bad("no such file")
		}
		return nil, err // names the file
	}
	var t sweepTable
	md, err := toml.DecodeFile(path, &t)
	if err != nil {
		return nil, bad("[sweep]: %v", err)
	}
	if !md.IsDefined("sweep") {
		return nil, bad("no [sweep] table: want one with vary = [\"PARAM=V1,V2,...\", ...]")
	}
	for _, k := range md.Undecoded() {
		if k[0] == "sweep" {
			return nil, bad("unknown key %q in [sweep]: want vary, seeds, out or scenario", k.String())
		}
	}
	s := t.Sweep
	if len(s.Vary) == 0 {
		return nil, bad("[sweep] vary is empty: want at least one \"PARAM=V1,V2,...\"")
	}
	for i, v := range s.Vary {
		if strings.TrimSpace(v) == "" {
			return nil, bad("[sweep] vary item %d is empty", i+1)
		}
	}
	if md.IsDefined("sweep", "seeds") && s.Seeds < 1 {
		return nil, bad("[sweep] seeds = %d: want at least 1", s.Seeds)
	}
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(filepath.Dir(path), p)
	}
	return &Spec{Path: path, Config: cfg, Vary: s.Vary, Seeds: s.Seeds, Out: rel(s.Out), Scenario: rel(s.Scenario)}, nil
}
