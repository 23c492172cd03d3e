package scenario_test

import (
	"os"
	"path/filepath"
	"testing"

	"mkeysim/scenario"
)

// FuzzParse: any input either parses or returns a *scenario.Error; it
// never panics. Seeded with every example and bad example.
func FuzzParse(f *testing.F) {
	for _, pat := range []string{"../examples/*.json", "../examples/errors/*.json"} {
		files, _ := filepath.Glob(pat)
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(`{"qps":[{"qpn":1,"pd":1}],"ops":[{"op":"query_mkey","index":1,"offset":"8589934584","count":3},{"op":"query_mkey","index":1,"count":0}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenario.Parse(data)
		if err != nil {
			if _, ok := err.(*scenario.Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if sc == nil {
			t.Fatal("nil scenario without an error")
		}
	})
}
