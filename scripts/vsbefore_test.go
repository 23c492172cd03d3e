package scripts_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestVsBeforeArguments: vs-before.sh refuses a round count that is not a
// positive number and a base that is not a commit of the clone, naming
// the value, before it builds anything (a whole run builds two trees and
// takes minutes: it is a developer's check, run by hand).
func TestVsBeforeArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"x"}, "ROUNDS must be a positive number, not 'x'"},
		{[]string{"0"}, "ROUNDS must be a positive number, not '0'"},
		{[]string{"3", "no-such-commit"}, "BASE 'no-such-commit' is not a commit of this clone"},
	} {
		out, err := exec.Command("/bin/bash", append([]string{"vs-before.sh"}, tc.args...)...).CombinedOutput()
		if code := exitCode(t, err); code != 2 || !strings.Contains(string(out), tc.want) {
			t.Errorf("vs-before.sh %v: exit %d, output %q; want exit 2 and %q", tc.args, code, out, tc.want)
		}
	}
}
