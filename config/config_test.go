package config

import "testing"

// TestFileArg: every spelling of the config flag is found, and nothing
// after "--" is taken for it.
func TestFileArg(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-config", "a.toml", "x.json"}, "a.toml"},
		{[]string{"--config", "a.toml"}, "a.toml"},
		{[]string{"-quiet", "-config=b.toml"}, "b.toml"},
		{[]string{"--config=c.toml"}, "c.toml"},
		{[]string{"-config"}, ""},
		{[]string{"--", "-config", "d.toml"}, ""},
		{[]string{"-configx", "e.toml"}, ""},
		{nil, ""},
	} {
		if got := FileArg(c.args); got != c.want {
			t.Errorf("FileArg(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}
