package live

import (
	"flag"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"mkeysim/prm"
	"mkeysim/vectors"
)

// The C header's and the DPI package's enumerations are the model's:
// every status, access type, space and cache operation has its name and
// number, so that a C or SystemVerilog caller reads statuses as the
// vectors' enums.status does.
func TestHeaderEnums(t *testing.T) {
	want := map[string]int{}
	for _, st := range prm.Statuses() {
		want["MKEYSIM_"+st.String()] = int(st)
	}
	for _, a := range prm.AccessTypes() {
		want["MKEYSIM_"+a.String()] = int(a)
	}
	for _, s := range []prm.Space{prm.SpaceDMA, prm.SpaceSWICM, prm.SpaceMEMIC} {
		want["MKEYSIM_SPACE_"+strings.ToUpper(s.String())] = int(s)
	}
	for name, op := range map[string]int{"LOOKUP": vectors.OpLookup, "FILL": vectors.OpFill, "INVAL": vectors.OpInval, "INVAL_ALL": vectors.OpInvalAll} {
		want["MKEYSIM_CACHE_"+name] = op
	}
	for name, k := range map[string]ListKind{"NONE": ListNone, "MTT": ListMTT, "KLM": ListKLM} {
		want["MKEYSIM_LIST_"+name] = int(k)
	}
	for _, file := range []struct {
		path string
		re   *regexp.Regexp
		only func(string) bool // names the file must define
	}{
		{"../cosim/mkeysim.h", regexp.MustCompile(`\b(MKEYSIM_[A-Z0-9_]+) = (-?\d+)`), func(string) bool { return true }},
		{"../cosim/dpi/mkeysim_dpi.sv", regexp.MustCompile(`\b(MKEYSIM_[A-Z0-9_]+) = (-?\d+)`), func(n string) bool {
			return !regexp.MustCompile(`_SPACE_|_LIST_`).MatchString(n)
		}},
	} {
		b, err := os.ReadFile(file.path)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, m := range file.re.FindAllStringSubmatch(string(b), -1) {
			got[m[1]], _ = strconv.Atoi(m[2])
		}
		for name, v := range want {
			if !file.only(name) {
				continue
			}
			if g, ok := got[name]; !ok || g != v {
				t.Errorf("%s: %s = %d (defined: %v), want %d", file.path, name, g, ok, v)
			}
		}
	}
}

var update = flag.Bool("update", false, "rewrite cosim/tb/mkeysim_formats.sv")

// cosim/tb/mkeysim_formats.sv is the model's format tables as the vectors
// write them; -update rewrites it.
func TestFormatsPackage(t *testing.T) {
	const path = "../cosim/tb/mkeysim_formats.sv"
	want := vectors.FormatsPackageSV()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s differs from the model's formats: go test ./live -run TestFormatsPackage -args -update", path)
	}
}
