package rtl

import (
	"fmt"
	"testing"

	"mkeysim/cover"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// TestCoverUnits: the parts of the clocked model that hit coverage points
// declare disjoint sets, which with the points derived from counters are
// exactly the points the catalog says the clocked model collects; every
// counter the catalog derives a point from is one the model declares.
func TestCoverUnits(t *testing.T) {
	top, err := New(DefaultConfig(), sim.New(), pcie.NewMemory(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[cover.ID]string{} // the catalog's clocked points, at any depth limit
	fromCounters := map[cover.ID]bool{}
	for _, p := range cover.AllPoints() {
		if p.Models&cover.Clocked != 0 {
			want[p.ID] = p.Name
			fromCounters[p.ID] = p.Counter != ""
		}
	}
	owner := map[cover.ID]string{}
	for _, u := range top.CoverUnits() {
		name := typeName(u)
		for _, id := range u.Covers() {
			switch {
			case owner[id] != "":
				t.Errorf("%s and %s both declare %s", owner[id], name, cover.NameOf(id))
			case want[id] == "":
				t.Errorf("%s declares %s, which the catalog does not give the clocked model", name, cover.NameOf(id))
			case fromCounters[id]:
				t.Errorf("%s declares %s, which comes from a counter", name, cover.NameOf(id))
			}
			owner[id] = name
		}
	}
	for id, name := range want {
		if owner[id] == "" && !fromCounters[id] {
			t.Errorf("no part of the clocked model declares %s", name)
		}
	}
	if err := top.CoverCounters(cover.New()); err != nil {
		t.Error(err)
	}
}

func typeName(u cover.Unit) string {
	if _, ok := u.(*core); ok {
		return "top"
	}
	return fmt.Sprintf("%T", u)
}
