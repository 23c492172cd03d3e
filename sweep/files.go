package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// WriteFiles writes every file into dir through temporary files renamed
// into place once all are written, so that no file is ever half written;
// stale files of owned that this sweep did not write (plots of an earlier
// sweep) are removed.
func WriteFiles(dir string, files []File, owned []string) error {
	var tmps []string
	defer func() {
		for _, t := range tmps {
			os.Remove(t)
		}
	}()
	for _, f := range files {
		tmp, err := os.CreateTemp(dir, "."+f.Name+".tmp-*")
		if err != nil {
			return unwrapPath(err)
		}
		tmps = append(tmps, tmp.Name())
		_, err = tmp.Write(f.Data)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(tmp.Name(), 0o644)
		}
		if err != nil {
			return fmt.Errorf("%s: %v", filepath.Join(dir, f.Name), err)
		}
	}
	for i, f := range files {
		if err := os.Rename(tmps[i], filepath.Join(dir, f.Name)); err != nil {
			return unwrapPath(err)
		}
	}
	tmps = nil
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
