package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const head = "$timescale 1ns $end\n$scope module top $end\n"

// TestRun: two files with the same signals and changes are the same
// whatever the order of the declarations and the identifier codes; a
// moved change, a missing signal and another width are each named.
func TestRun(t *testing.T) {
	base := head + "$var wire 1 ! a $end\n$var wire 4 \" b $end\n$upscope $end\n$enddefinitions $end\n#0\n0!\nb0 \"\n#5\n1!\n#7\nb11 \"\n"
	for _, tc := range []struct {
		name, after string
		rc          int
		want        string
	}{
		{"same", base, 0, "the same 2 signals with the same changes, declared in the same order"},
		{"reordered", head + "$var wire 4 x b $end\n$var wire 1 y a $end\n$upscope $end\n$enddefinitions $end\n#0\nb0 x\n0y\n#5\n1y\n#7\nb11 x\n", 0, "declared in another order"},
		{"moved", head + "$var wire 1 ! a $end\n$var wire 4 \" b $end\n$upscope $end\n$enddefinitions $end\n#0\n0!\nb0 \"\n#4\n1!\n#7\nb11 \"\n", 1, "top.a: changes differ from the change 1 on: before 1 at 5, after 1 at 4"},
		{"missing", head + "$var wire 1 ! a $end\n$upscope $end\n$enddefinitions $end\n#0\n0!\n#5\n1!\n", 1, "top.b: only before"},
		{"width", head + "$var wire 1 ! a $end\n$var wire 8 \" b $end\n$upscope $end\n$enddefinitions $end\n#0\n0!\nb0 \"\n#5\n1!\n#7\nb11 \"\n", 1, "top.b: 4 bits before, 8 after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a.vcd"), filepath.Join(dir, "b.vcd")
			if err := os.WriteFile(a, []byte(base), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(b, []byte(tc.after), 0o644); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if rc := run(&out, a, b); rc != tc.rc || !strings.Contains(out.String(), tc.want) {
				t.Errorf("exit %d, output %q; want %d and %q", rc, out.String(), tc.rc, tc.want)
			}
		})
	}
}
