package rtl

import (
	"fmt"
	"testing"

	"mkeysim/cover"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// TestCoverUnits: the parts of the clocked model that hit coverage points
// declare disjoint sets, which are exactly the points the catalog says
// the clocked model collects; the points its counters declare are one a
// counter, named apart from the catalog's and from each other.
func TestCoverUnits(t *testing.T) {
	top, err := New(DefaultConfig(), sim.New(), pcie.NewMemory(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[cover.ID]string{} // the catalog's clocked points, at any depth limit
	names := map[string]bool{}
	for _, p := range cover.AllPoints() {
		names[p.Name] = true
		if p.Models&cover.Clocked != 0 {
			want[p.ID] = p.Name
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
			}
			owner[id] = name
		}
	}
	for id, name := range want {
		if owner[id] == "" {
			t.Errorf("no part of the clocked model declares %s", name)
		}
	}
	c := cover.New()
	if err := top.CoverCounters(c); err != nil {
		t.Error(err)
	}
	declared := 0
	for _, x := range top.eng.Counters() {
		if x.Cover.Name != "" {
			declared++
		}
	}
	derived, _ := c.Derived()
	if len(derived) != declared || declared < 16 {
		t.Errorf("%d counters declare points, %d points derived (two counters share a name?); want 16 or more", declared, len(derived))
	}
	for _, p := range derived {
		if names[p.Name] {
			t.Errorf("counter %s declares %s, a name of the catalog", p.Counter, p.Name)
		}
		names[p.Name] = true
	}
}

func typeName(u cover.Unit) string {
	if _, ok := u.(*core); ok {
		return "top"
	}
	return fmt.Sprintf("%T", u)
}
