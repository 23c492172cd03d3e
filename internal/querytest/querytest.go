// Package querytest holds the QUERY_MKEY snapshot scenario and the check
// of its result lines, which both models' tests run (ref's and tb's):
// one scenario, one expectation, for the golden and the clocked model.
package querytest

import (
	"strings"
	"testing"

	"mkeysim/scenario"
)

// Scenario queries an MTT and a KLM object, rewrites both lists by UMR,
// and queries again.
const Scenario = `{"qps":[{"qpn":1,"pd":5}],
"mkeys":[
 {"index":1,"mkc":{"access_mode":"MTT","log_entity_size":12,"pd":5,"lr":1,"umr_en":1,"len":"0x2000"},"mtt":[{"ptag":"0x5000"},{"ptag":"0x6000"}]},
 {"index":2,"mkc":{"access_mode":"KLM","pd":5,"lr":1,"umr_en":1,"len":"0x10"},"klm":[{"byte_count":16,"mkey":"0x100","address":"0x0"}]}],
"ops":[
 {"op":"query_mkey","index":1},
 {"op":"query_mkey","index":2},
 {"op":"umr","qpn":1,"key":"0x100","mtt":[{"ptag":"0x9000"}]},
 {"op":"umr","qpn":1,"key":"0x200","klm":[{"byte_count":8,"mkey":"0x100","address":"0x1000"}]},
 {"op":"query_mkey","index":1},
 {"op":"query_mkey","index":2}]}`

// CheckLines checks the result lines of Scenario: each query's list shows
// the entries it holds at that point, then the padding a UMR leaves.
func CheckLines(t *testing.T, res []scenario.Result) {
	t.Helper()
	if len(res) != 6 {
		t.Fatalf("%d results", len(res))
	}
	var lines []string
	for i := range res {
		var b strings.Builder
		if err := res[i].WriteLine(&b); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b.String())
	}
	for _, c := range []struct {
		seq  int
		want string
	}{
		{0, `"mtt":[{"ptag":"0x5000","rd_en":1,"wr_en":1},{"ptag":"0x6000","rd_en":1,"wr_en":1},{"ptag":"0x0","rd_en":0,"wr_en":0},`},
		{1, `"klm":[{"byte_count":16,"mkey":"0x100","address":"0x0"},{"byte_count":0,"mkey":"0x0","address":"0x0"},`},
		{4, `"mtt":[{"ptag":"0x9000","rd_en":1,"wr_en":1},{"ptag":"0x0","rd_en":0,"wr_en":0},`},
		{5, `"klm":[{"byte_count":8,"mkey":"0x100","address":"0x1000"},{"byte_count":0,"mkey":"0x0","address":"0x0"},`},
	} {
		if !strings.Contains(lines[c.seq], c.want) {
			t.Errorf("seq %d: %s\n want it to hold %s", c.seq, lines[c.seq], c.want)
		}
	}
}
