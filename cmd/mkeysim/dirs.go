package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// madeDirs creates the missing directories of output paths (--out
// out/run.jsonl makes out/, as 'go build -o' does) and remembers them, so
// that a run refused or failed before writing there leaves no empty
// directory behind.
type madeDirs []string

// parent creates path's missing parent directories; flag names the
// option in the error.
func (m *madeDirs) parent(flag, path string) error {
	if path == "" {
		return nil
	}
	var missing []string
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !os.IsExist(err) {
			return fmt.Errorf("%s %q: cannot create %s: %v", flag, path, missing[i], unwrapPath(err))
		}
		*m = append(*m, missing[i])
	}
	return nil
}

// removeEmpty removes the directories made that are still empty, deepest
// first. (A pointer receiver: "defer made.removeEmpty()" must see the
// directories made after the defer.)
func (m *madeDirs) removeEmpty() {
	for i := len(*m) - 1; i >= 0; i-- {
		os.Remove((*m)[i]) // fails, as it should, on a directory with files
	}
}
