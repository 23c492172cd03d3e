package vectors

import (
	"fmt"
	"path/filepath"
	"sort"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
)

// exampleAccess is one access of an example scenario, with the golden
// model in the state in which the access runs.
type exampleAccess struct {
	file    string // base name
	seq     int    // the op's index
	m       *ref.Model
	access  scenario.Access
	version int // changes whenever a command may have changed the model
}

// checkedMKC is the MKC of the access's key when a walker meets the
// access: the key's object and the QP exist, the access moves bytes, and
// the key passes the level-0 checks (ref.Check). It is nil otherwise.
func (a *exampleAccess) checkedMKC() *prm.MKC {
	obj := a.m.Object(a.access.Key.Index())
	qp, ok := a.m.QP(a.access.QPN)
	if obj == nil || !ok || a.access.Len == 0 {
		return nil
	}
	mk := &obj.MKC
	if ref.Check(mk, a.access.Key, 0, a.access.Addr, uint64(a.access.Len), a.access.QPN, qp.PD, a.access.Type) != prm.OK {
		return nil
	}
	return mk
}

// exampleFiles lists dir/*.json, sorted.
func exampleFiles(dir string) ([]string, error) {
	if dir == "" {
		return nil, nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return files, nil
}

// eachExampleAccess runs every example scenario of dir through the golden
// model and calls f before each access is applied, in file and op order.
// It returns the base names of the files that gave vectors: those during
// whose accesses taken (the caller's count of vectors) grew.
//
// stop, when it closes, ends the walk with ErrStopped within one
// operation: the golden model looks at it inside a long translation too.
func eachExampleAccess(dir string, stop <-chan struct{}, taken func() int, f func(a *exampleAccess) error) ([]string, error) {
	files, err := exampleFiles(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	version := 0
	for _, path := range files {
		sc, err := scenario.ReadFile(path)
		if err != nil {
			return nil, &FlagError{"examples", dir, err.Error()}
		}
		if sc.IOMMU != nil {
			continue // the units' vectors are the HCA's: the IOMMU is the host's
		}
		cfg := ref.DefaultConfig()
		cfg.Stop = stop
		m := ref.New(cfg)
		if err := m.Load(sc); err != nil {
			return nil, &FlagError{"examples", dir, fmt.Sprintf("%s: %v", path, err)}
		}
		before := taken()
		version++
		for i := range sc.Ops {
			op := &sc.Ops[i]
			switch op.Kind {
			case scenario.OpAccess:
				if err := f(&exampleAccess{file: filepath.Base(path), seq: i, m: m, access: op.Access, version: version}); err != nil {
					return nil, err
				}
			case scenario.OpQueryMKey:
			default:
				version++
			}
			m.Apply(i, op)
			if m.Stopped() {
				return nil, ErrStopped
			}
		}
		if taken() > before {
			names = append(names, filepath.Base(path))
		}
	}
	return names, nil
}
