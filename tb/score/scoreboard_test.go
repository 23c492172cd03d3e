package score

import (
	"strings"
	"testing"

	"mkeysim/ref"
	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/tb/stimulus"
)

// TestScoreboardWindow: results checked out of order agree; a second
// result for an operation and one for no operation are differences;
// Missing names the operation left without a result; and the scoreboard
// holds only the window from the oldest result not yet matched.
func TestScoreboardWindow(t *testing.T) {
	w := stimulus.DefaultWorkload() // the hit-bound workload of tb's benchmarks
	w.UMRPerMille, w.InvalPerMille, w.QueryPerMille, w.ResumePerMille, w.HotPerMille = 0, 0, 0, 0, 1000
	sc := stimulus.Generate(w)
	sc.Ops = sc.Ops[:40]
	cfg := ref.Config{MaxIndirection: rtl.DefaultConfig().KLM.MaxIndirection}
	m := ref.New(cfg)
	if err := m.Load(sc); err != nil {
		t.Fatal(err)
	}
	res := make([]scenario.Result, len(sc.Ops))
	for i := range sc.Ops {
		m.ApplyInto(i, &sc.Ops[i], &res[i])
	}
	board, err := NewBoard(sc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Each block of eight backwards, operation 37 left out.
	for b := 0; b < len(res); b += 8 {
		for i := min(b+7, len(res)-1); i >= b; i-- {
			if i == 37 {
				continue
			}
			if d := board.Check(&res[i]); d != "" {
				t.Fatalf("seq %d, checked out of order: %s", i, d)
			}
		}
	}
	if d := board.Check(&res[5]); !strings.Contains(d, "a second result") {
		t.Errorf("a second result for seq 5: %q", d)
	}
	other := res[0]
	other.Seq = len(res) + 3
	if d := board.Check(&other); !strings.Contains(d, "for no operation") {
		t.Errorf("a result for seq %d: %q", other.Seq, d)
	}
	if missing, n := board.Missing(3); n != 1 || !strings.HasPrefix(missing[0], "seq 37 ") {
		t.Errorf("Missing: %d, %v; want seq 37 alone", n, missing)
	}
	if n := len(board.want) - board.off; board.lo != 37 || n != 3 {
		t.Errorf("the window holds %d results from seq %d, want 3 from 37", n, board.lo)
	}
	if board.Mismatches != 2 {
		t.Errorf("%d mismatches counted, want 2", board.Mismatches)
	}
}
