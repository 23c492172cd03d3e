// Command vcddiff compares two VCD files signal by signal, by path:
// whether both declare the same signals with the same widths and every
// signal has the same changes at the same times, whatever the order of
// the declarations and the identifier codes. same-as.sh runs it when two
// VCDs differ byte for byte, so that a change that only reorders the
// declarations (a scope moved in the save file's order) says so, and one
// that moves a value says which signal and when.
//
//	go run ./scripts/vcddiff BEFORE.vcd AFTER.vcd
//
// It prints one line per signal that differs (at most 20, then a count)
// and a summary; exit status 0 when the two hold the same signals and
// changes, 1 when they do not, 2 when a file cannot be read or parsed.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"

	"mkeysim/vcd"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: vcddiff BEFORE.vcd AFTER.vcd")
		os.Exit(2)
	}
	os.Exit(run(os.Stdout, os.Args[1], os.Args[2]))
}

func run(w io.Writer, before, after string) int {
	a, err := parse(before)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vcddiff:", err)
		return 2
	}
	b, err := parse(after)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vcddiff:", err)
		return 2
	}
	diffs := compare(a, b)
	for i, d := range diffs {
		if i == 20 {
			fmt.Fprintf(w, "... and %d more\n", len(diffs)-20)
			break
		}
		fmt.Fprintln(w, d)
	}
	order := "in the same order"
	if !slices.EqualFunc(a.Vars, b.Vars, func(x, y vcd.VarInfo) bool { return x.Path == y.Path }) {
		order = "in another order"
	}
	if len(diffs) > 0 {
		fmt.Fprintf(w, "%d of %d signals differ (declared %s)\n", len(diffs), len(b.Vars), order)
		return 1
	}
	fmt.Fprintf(w, "the same %d signals with the same changes, declared %s\n", len(b.Vars), order)
	return 0
}

func parse(path string) (*vcd.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v, err := vcd.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// compare lists, by path, the signals one file declares and the other
// not, those of other widths, and those whose changes differ (with the
// first time they do).
func compare(a, b *vcd.File) []string {
	var out []string
	for _, va := range a.Vars {
		vb, ok := b.Var(va.Path)
		switch {
		case !ok:
			out = append(out, va.Path+": only before")
		case va.Width != vb.Width:
			out = append(out, fmt.Sprintf("%s: %d bits before, %d after", va.Path, va.Width, vb.Width))
		default:
			ca, cb := a.Changes(va.Path), b.Changes(va.Path)
			if k := firstDiff(ca, cb); k >= 0 {
				out = append(out, fmt.Sprintf("%s: changes differ from the %s", va.Path, at(ca, cb, k)))
			}
		}
	}
	for _, vb := range b.Vars {
		if _, ok := a.Var(vb.Path); !ok {
			out = append(out, vb.Path+": only after")
		}
	}
	return out
}

// firstDiff is the index of the first change that differs, -1 if none.
func firstDiff(a, b []vcd.Change) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func at(a, b []vcd.Change, k int) string {
	show := func(cs []vcd.Change) string {
		if k < len(cs) {
			return fmt.Sprintf("%s at %d", cs[k].Value, cs[k].Time)
		}
		return "none"
	}
	return fmt.Sprintf("change %d on: before %s, after %s", k, show(a), show(b))
}
