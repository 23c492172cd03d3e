package config

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"mkeysim/tb/stimulus"
)

// TestTraceFileParam: workload.trace_file is a parameter like the others
// (a TOML key, a flag, any string); a bad trace is refused by Load and
// Validate naming the configuration file, the trace file, its line and
// field; a good one is read once, by Validate, and kept in the
// configuration it returns, so that the run replays it without reading
// the file again.
func TestTraceFileParam(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("qpn,key,addr,len,type\n1,r1,0x10000000000,64,LOCAL_READ\n1,r1,0x10000000000,0,LOCAL_READ\n"), 0o644)
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte(`{"qpn":1,"key":"r2","offset":0,"len":64,"type":"LOCAL_READ"}`+"\n"), 0o644)

	cfgFile := filepath.Join(dir, "c.toml")
	os.WriteFile(cfgFile, []byte("[workload]\nkind = \"trace\"\ntrace_file = \""+bad+"\"\n"), 0o644)
	want := cfgFile + ": workload.trace_file: " + bad + `: line 3: len = "0": want 1..2^30 bytes`
	if _, err := Load(cfgFile); err == nil || err.Error() != want {
		t.Errorf("Load: %v, want %q", err, want)
	}
	os.WriteFile(cfgFile, []byte("[workload]\nkind = \"trace\"\ntrace_file = 5\n"), 0o644)
	if _, err := Load(cfgFile); err == nil || !strings.Contains(err.Error(), "line 3: workload.trace_file = 5: want any string") {
		t.Errorf("Load of a number: %v", err)
	}

	c := Default()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SetNormalizeFunc(NormalizeFlag)
	c.RegisterFlags(fs)
	if err := fs.Parse([]string{"--workload.kind", "trace", "--workload.trace-file", good, "--workload.accesses", "3"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(good); err != nil {
		t.Fatal(err)
	}
	sc := stimulus.Generate(c.Workload)
	if len(sc.Ops) != 3 || sc.Ops[2].Access.Addr != 2<<40 {
		t.Errorf("replay of the trace Validate read: %d operations", len(sc.Ops))
	}
	if m := c.Map(); m["workload.trace_file"] != good {
		t.Errorf("config echo: workload.trace_file = %v", m["workload.trace_file"])
	}
}
