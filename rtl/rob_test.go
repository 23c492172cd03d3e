package rtl

import (
	"reflect"
	"testing"
)

// TestROBEntryFields: issue sets a reused entry's fields one by one (all
// but fail, read only once failed is set) instead of clearing the whole
// entry; a field added to robEntry must be set there too, so this test
// names the fields issue knows.
func TestROBEntryFields(t *testing.T) {
	known := []string{"used", "seq", "acc", "start", "covered", "segs", "fail", "failed", "more", "moreSum", "keepTo", "resume", "gen",
		"cutAt", "cutQueued", "mvSeg", "moved", "counted"}
	var got []string
	rt := reflect.TypeOf(robEntry{})
	for i := range rt.NumField() {
		got = append(got, rt.Field(i).Name)
	}
	if !reflect.DeepEqual(got, known) {
		t.Errorf("robEntry's fields are %v; issue (ingress.go) sets %v: set the new ones there, then list them here", got, known)
	}
}
