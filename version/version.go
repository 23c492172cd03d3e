// Package version says which build of mkeysim is running, from what the Go
// toolchain records in every binary (module version, VCS revision and
// time, uncommitted changes): 'go build' in a checkout and 'go install
// module@version' both report it without link-time flags.
package version

import (
	"runtime/debug"
	"strings"
)

// Info is what the binary knows of its build.
type Info struct {
	Module   string // module version: v1.2.3, a pseudo-version, or (devel)
	Commit   string // VCS revision, "" when the build did not record one
	Time     string // commit time (RFC 3339), ""
	Modified bool   // the checkout had uncommitted changes
	Go       string // toolchain
}

// Read returns the build information of the running binary.
func Read() Info {
	i := Info{Module: "(devel)"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return i
	}
	if bi.Main.Version != "" {
		i.Module = bi.Main.Version
	}
	i.Go = bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Commit = s.Value
		case "vcs.time":
			i.Time = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	return i
}

// Short is the commit, abbreviated, with "-dirty" for uncommitted
// changes; the module version when no commit was recorded.
func (i Info) Short() string {
	if i.Commit == "" {
		return i.Module
	}
	c := i.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if i.Modified {
		c += "-dirty"
	}
	return c
}

// String is one line: "mkeysim (devel), commit 0123456789ab-dirty
// (2026-12-03T06:50:02Z), go1.26.8".
func (i Info) String() string {
	var b strings.Builder
	b.WriteString("mkeysim " + i.Module)
	if i.Commit != "" {
		b.WriteString(", commit " + i.Short())
		if i.Time != "" {
			b.WriteString(" (" + i.Time + ")")
		}
	} else {
		b.WriteString(", no commit recorded")
	}
	if i.Go != "" {
		b.WriteString(", " + i.Go)
	}
	return b.String()
}
