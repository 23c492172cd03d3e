package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"mkeysim/internal/outfile"
)

// PrepareDir makes dir if it is missing and checks that files can be
// created in it; created says whether it made dir.
func PrepareDir(dir string) (created bool, err error) {
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return false, fmt.Errorf("not a directory")
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return false, err
	case err != nil:
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, unwrapPath(err)
		}
		created = true
	}
	f, err := os.CreateTemp(dir, ".sweep-probe-*")
	if err != nil {
		if created {
			os.Remove(dir)
		}
		return false, unwrapPath(err)
	}
	f.Close()
	os.Remove(f.Name())
	return created, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// WriteFiles writes every file into dir through internal/outfile, all or
// nothing: each is written and synced under a temporary name, and they
// are renamed into place only when every one is complete. Stale files of
// owned that this sweep did not write (plots of an earlier sweep) are
// then removed. The error is an *outfile.Error naming the file.
func WriteFiles(dir string, files []File, owned []string) error {
	named := make([]outfile.Named, len(files))
	for i, f := range files {
		named[i] = outfile.Named{Name: f.Name, Data: f.Data}
	}
	if err := outfile.WriteFiles(dir, named); err != nil {
		return err
	}
	wrote := map[string]bool{}
	for _, f := range files {
		wrote[f.Name] = true
	}
	for _, name := range owned {
		if !wrote[name] {
			os.Remove(filepath.Join(dir, name))
		}
	}
	return nil
}
