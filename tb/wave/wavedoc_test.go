package wave

import (
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"mkeysim/rtl"
	"mkeysim/tb"
	"mkeysim/vcd"
)

// The channel signals every traced channel has, before its payload's
// fields (trace.go).
var handshakeSignals = []string{"push", "valid", "ready", "count"}

// tracedScope is what the waveform shows in one unit's scope: its own
// signals (its state) and its channels with their payload fields.
type tracedScope struct {
	state    []string
	channels map[string][]string // channel name -> payload fields, in order
}

// tracedScopes splits the signals of a default model's waveform by scope,
// leaving out the clock and the counters (docs/counters.md has those).
// Numbered contexts show as ctxN.
func tracedScopes(t *testing.T) map[string]*tracedScope {
	t.Helper()
	// Every scope: the default model's, and the platform's: the host IOMMU
	// and the device's ATC (issue 36), and the root complex's posted-write
	// buffer (issue 37 part 4).
	cfg := rtl.DefaultConfig()
	cfg.IOMMU.Enabled, cfg.Data.Enabled, cfg.HCACap.ATS = true, true, true
	cfg.Host.WriteLatencyCycles = 50
	b, err := tb.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := New(b, io.Discard, vcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	names := map[string][]string{} // by scope, in declaration order
	for _, s := range tr.Signals() {
		i := strings.LastIndexByte(s.Path, '.')
		scope, name := s.Path[:i], s.Path[i+1:]
		if scope == "top" || strings.HasPrefix(scope, "top.counters") {
			continue
		}
		names[scope] = append(names[scope], name)
	}
	ctx := regexp.MustCompile(`^ctx[0-9]+_`)
	out := map[string]*tracedScope{}
	for scope, signals := range names {
		ts := &tracedScope{channels: map[string][]string{}}
		// A channel's signals follow one another, its handshake first
		// (trace_signals.go): C_push opens channel C, and the signals
		// after it that start with C_ are its own; anything else is the
		// unit's state (declared before its channels).
		cur := ""
		for _, n := range signals {
			if c, ok := strings.CutSuffix(n, "_push"); ok {
				cur = c
				ts.channels[c] = []string{}
				continue
			}
			field, ok := strings.CutPrefix(n, cur+"_")
			switch {
			case cur != "" && ok && slices.Contains(handshakeSignals, field):
			case cur != "" && ok:
				ts.channels[cur] = append(ts.channels[cur], field)
			default:
				cur = ""
				n = ctx.ReplaceAllString(n, "ctxN_")
				if !slices.Contains(ts.state, n) {
					ts.state = append(ts.state, n)
				}
			}
		}
		out[scope] = ts
	}
	return out
}

// markdownTable returns the rows of the table of doc whose header line
// is header, each row's cells trimmed.
func markdownTable(t *testing.T, doc, header string) [][]string {
	t.Helper()
	i := strings.Index(doc, header+"\n")
	if i < 0 {
		t.Fatalf("docs/waveform.md: no table %q", header)
	}
	var rows [][]string
	for _, line := range strings.Split(doc[i:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for k := range cells {
			cells[k] = strings.TrimSpace(cells[k])
		}
		rows = append(rows, cells)
	}
	return rows
}

var backticked = regexp.MustCompile("`([^`]+)`")

// ticks lists the backticked words of a cell, in order.
func ticks(cell string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestWaveformDoc: docs/waveform.md's two tables, "Scopes and signals",
// are the waveform's. Each scope's unit state and channels are the
// signals a default model's tracer declares there, no more and no less,
// and each channel's payload fields are those of the one row of the
// payload table that names it, in order. Issue 10 asks that every signal
// of the page stay in the waveform; the page had also missed a channel
// the send-queue front added.
func TestWaveformDoc(t *testing.T) {
	raw, err := os.ReadFile("../../docs/waveform.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	scopes := tracedScopes(t)

	documented := map[string]bool{}
	for _, row := range markdownTable(t, doc, "| scope | unit state, then channels |") {
		scope := strings.Trim(row[0], "`")
		if scope == "top.counters" {
			continue
		}
		documented[scope] = true
		ts, ok := scopes[scope]
		if !ok {
			t.Errorf("docs/waveform.md: scope %s is not in the waveform", scope)
			continue
		}
		var state, chans []string
		for _, w := range ticks(row[1]) {
			switch {
			case strings.ContainsAny(w, ". -"): // a reference to another signal, a flag
			case strings.HasSuffix(w, "_*"):
				chans = append(chans, strings.TrimSuffix(w, "_*"))
			default:
				state = append(state, w)
			}
		}
		if !slices.Equal(sorted(state), sorted(ts.state)) {
			t.Errorf("docs/waveform.md: %s's unit state is %v, the waveform's %v", scope, state, ts.state)
		}
		var have []string
		for c := range ts.channels {
			have = append(have, c)
		}
		if !slices.Equal(sorted(chans), sorted(have)) {
			t.Errorf("docs/waveform.md: %s's channels are %v, the waveform's %v", scope, sorted(chans), sorted(have))
		}
	}
	for scope := range scopes {
		if !documented[scope] {
			t.Errorf("docs/waveform.md: the waveform's scope %s has no row", scope)
		}
	}

	// The payload table: each row's channels and its fields ("the
	// piece's" stands for the piece row's fields, "none" for none).
	type payload struct {
		name     string
		channels []string
		fields   []string
	}
	var payloads []payload
	var piece []string
	for _, row := range markdownTable(t, doc, "| payload | channels | fields |") {
		p := payload{name: row[0], channels: ticks(row[1])}
		rest := row[2]
		if before, after, ok := strings.Cut(rest, "the piece's"); ok {
			p.fields = append(append(ticks(before), piece...), ticks(after)...)
		} else {
			p.fields = ticks(rest)
		}
		if p.name == "piece" {
			piece = p.fields
		}
		payloads = append(payloads, p)
	}
	// matches reports whether the table's channel pattern names channel
	// c of scope: "unit.chan" is top.unit's chan, "top.x.chan" is the
	// scope top.x's, a * stands for any unit or any channel.
	matches := func(pattern, scope, c string) bool {
		if !strings.HasPrefix(pattern, "top.") {
			pattern = "top." + pattern
		}
		i := strings.LastIndexByte(pattern, '.')
		ps, pc := pattern[:i], pattern[i+1:]
		return (ps == scope || ps == "top.*") && (pc == c || pc == "*")
	}
	for scope, ts := range scopes {
		for c, fields := range ts.channels {
			var rows []string
			for _, p := range payloads {
				for _, pattern := range p.channels {
					if matches(pattern, scope, c) {
						rows = append(rows, p.name)
						if !slices.Equal(p.fields, fields) {
							t.Errorf("docs/waveform.md: %s.%s carries the %s payload, whose fields the page lists as %v; the waveform has %v", scope, c, p.name, p.fields, fields)
						}
						break
					}
				}
			}
			if len(rows) != 1 {
				t.Errorf("docs/waveform.md: %d rows of the payload table name %s.%s (%v), want one", len(rows), scope, c, rows)
			}
		}
	}
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }
