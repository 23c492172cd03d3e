package linecache

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// policyGeoms are the geometries each policy is compared with its
// reference on: sets x ways and fully associative, of several line
// sizes, some of more than 16 ways (the map index). pow2 marks those
// whose sets have a power-of-two number of ways (PLRU needs it).
var policyGeoms = []struct {
	cfg  Config
	eb   int
	pow2 bool
}{
	{Geometry(1, 1, 8), 8, true}, {Geometry(1, 2, 1), 8, true}, {Geometry(1, 4, 8), 8, true},
	{Geometry(4, 4, 2), 16, true}, {Geometry(2, 8, 4), 8, true}, {Geometry(8, 2, 8), 16, true},
	{Geometry(2, 3, 8), 8, false}, {Geometry(4, 5, 1), 16, false},
	{fullyAssoc(2, 1, ""), 8, true}, {fullyAssoc(8, 4, ""), 16, true}, {fullyAssoc(16, 8, ""), 8, true},
	{fullyAssoc(32, 2, ""), 8, true}, {Geometry(2, 32, 1), 16, true},
	{fullyAssoc(3, 1, ""), 8, false}, {fullyAssoc(5, 2, ""), 16, false}, {fullyAssoc(24, 8, ""), 8, false},
	{fullyAssoc(100, 1, ""), 8, false}, {Geometry(4, 17, 2), 8, false},
}

// TestPoliciesVsReference runs random lookups, fills and invalidations
// (ranges and all) on every policy and compares the cache way by way with
// the slice-based reference of its policy after each operation: answers,
// victims, data and counters.
func TestPoliciesVsReference(t *testing.T) {
	for _, pol := range []string{LRU, PLRU, NRU, Random} {
		t.Run(pol, func(t *testing.T) {
			for gi, g := range policyGeoms {
				if pol == PLRU && !g.pow2 {
					continue
				}
				cfg := g.cfg
				cfg.Replacement = pol
				for k := range int64(4) {
					seed := int64(gi)*1000 + k + 7
					cfg.Seed = uint64(seed) * 0x9e3779b97f4a7c15
					src := rngSource{rand.New(rand.NewSource(seed))}
					c := newValid(t, cfg, g.eb)
					lb, _, _ := refGeom(cfg, g.eb)
					pool := makePool(src, lb, cfg.Lines())
					models := []refModel{newRefCache(cfg, g.eb)}
					if pol == LRU {
						models = append(models, newRefLRU(cfg, g.eb))
					}
					if err := drive(c, models, src, 2000, pool, seed); err != nil {
						t.Fatalf("seed %d geometry %+v entry bytes %d: %v", seed, cfg, g.eb, err)
					}
				}
			}
		})
	}
}

// stepper runs a directed sequence on a one-set cache of 8-byte lines:
// "A" fills line A (address 0), "B" line B (8)..., "+A" looks A up (it
// must hit), "-A" invalidates A's line, "*" invalidates all.
type stepper struct {
	t *testing.T
	c *Cache
}

func newStepper(t *testing.T, replacement string, ways int, seed uint64) stepper {
	cfg := fullyAssoc(ways, 1, replacement)
	cfg.Seed = seed
	return stepper{t, newValid(t, cfg, 8)}
}

// run does the steps and returns the lines the fills evicted.
func (s stepper) run(steps string) string {
	s.t.Helper()
	var ev strings.Builder
	for _, st := range strings.Fields(steps) {
		a := uint64(st[len(st)-1]-'A') * 8
		switch st[0] {
		case '+':
			if _, ok := lookup(s.c, a); !ok {
				s.t.Fatalf("%s: %s missed (set %s)", steps, st, s.ways())
			}
		case '-':
			s.c.Invalidate(a, a+8, false)
		case '*':
			s.c.Invalidate(0, 0, true)
		default:
			before := s.ways()
			s.c.Fill(a, nil)
			after := s.ways()
			for i := range before {
				if before[i] != '.' && before[i] != after[i] {
					ev.WriteByte(before[i])
				}
			}
		}
	}
	return ev.String()
}

// ways shows the set's lines by way ('.': invalid).
func (s stepper) ways() string {
	b := make([]byte, s.c.ways)
	for i, tag := range s.c.tags {
		b[i] = '.'
		if tag != 0 {
			b[i] = byte('A' + tag - 1)
		}
	}
	return string(b)
}

// TestPLRUDirected walks tree pseudo-LRU sets through the classic
// sequences: after A B C D the tree points at A; a later hit of A sends
// the victim to the other half, where the last touched pair points at C
// (true LRU would evict B).
func TestPLRUDirected(t *testing.T) {
	cases := []struct {
		ways  int
		steps string
		evict string // lines evicted, in order
		set   string // lines by way
		bits  string // node bits 1..ways-1 (1: the victim is right)
		next  byte   // the next victim's line
	}{
		{1, "A B", "A", "B", "", 'B'},
		{2, "A B +A C", "B", "AC", "0", 'A'},
		{4, "A B C D", "", "ABCD", "000", 'A'},
		{4, "A B C D E", "A", "EBCD", "110", 'C'},
		{4, "A B C D +A E", "C", "ABED", "011", 'B'},
		{4, "A B C D +A E F", "CB", "AFED", "101", 'D'},
		{4, "A B C D +C E", "A", "EBCD", "111", 'D'},
		{4, "A B C D +B +A +D +C", "", "ABCD", "011", 'B'},
		{4, "A B C D -B E", "", "AECD", "100", 'C'}, // the invalid way first
		{4, "A B C D * C", "", "C...", "110", '.'},
		{8, "A B C D E F G H", "", "ABCDEFGH", "0000000", 'A'},
		{8, "A B C D E F G H +A I", "E", "ABCDIFGH", "0111010", 'C'},
		{8, "A B C D E F G H +A I J", "EC", "ABJDIFGH", "1011110", 'G'},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%d/%s", tc.ways, tc.steps), func(t *testing.T) {
			s := newStepper(t, PLRU, tc.ways, 0)
			if ev := s.run(tc.steps); ev != tc.evict {
				t.Errorf("evicted %q, want %q", ev, tc.evict)
			}
			if got := s.ways(); got != tc.set {
				t.Errorf("set %s, want %s", got, tc.set)
			}
			p := s.c.pol.(*plru)
			var bits strings.Builder
			for k := 1; k < tc.ways; k++ {
				bits.WriteByte("01"[b2i(p.get(k))])
			}
			if bits.String() != tc.bits {
				t.Errorf("node bits %s, want %s", bits.String(), tc.bits)
			}
			if v := p.Victim(0); s.ways()[v] != tc.next {
				t.Errorf("next victim way %d (%c), want %c", v, s.ways()[v], tc.next)
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestNRUDirected: a use sets the line's referenced bit; the use that
// would leave every line referenced clears the others; the victim is
// the lowest unreferenced way; an invalidation clears the bit.
func TestNRUDirected(t *testing.T) {
	cases := []struct {
		ways  int
		steps string
		evict string
		set   string
		ref   string // referenced bits by way
		next  byte
	}{
		{1, "A", "", "A", "1", 'A'},
		{1, "A B +B", "A", "B", "1", 'B'},
		{2, "A B", "", "AB", "01", 'A'},
		{2, "A B C", "A", "CB", "10", 'B'},
		{4, "A B C", "", "ABC.", "1110", 'A'},
		{4, "A B C D", "", "ABCD", "0001", 'A'}, // D referenced every line: the others cleared
		{4, "A B C D E", "A", "EBCD", "1001", 'B'},
		{4, "A B C D +B E", "A", "EBCD", "1101", 'C'},
		{4, "A B C D +B E F", "AC", "EBFD", "0010", 'E'},
		{4, "A B C D +D", "", "ABCD", "0001", 'A'}, // already referenced: nothing cleared
		{4, "A B C D +A +B +C", "", "ABCD", "0010", 'A'},
		{4, "A B C -B", "", "A.C.", "1010", 'B'},
		{4, "A B C -B D E", "", "ADCE", "0001", 'A'}, // D took the invalid way, E referenced every line
		{4, "A B C D -D", "", "ABC.", "0000", 'A'},
		{4, "A B C D * B", "", "B...", "1000", 'B'},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%d/%s", tc.ways, tc.steps), func(t *testing.T) {
			s := newStepper(t, NRU, tc.ways, 0)
			if ev := s.run(tc.steps); ev != tc.evict {
				t.Errorf("evicted %q, want %q", ev, tc.evict)
			}
			if got := s.ways(); got != tc.set {
				t.Errorf("set %s, want %s", got, tc.set)
			}
			p := s.c.pol.(*nru)
			var ref strings.Builder
			n := 0
			for w := range tc.ways {
				b := p.ref[w>>6]&(1<<(w&63)) != 0
				ref.WriteByte("01"[b2i(b)])
				n += b2i(b)
			}
			if ref.String() != tc.ref || int(p.n[0]) != n {
				t.Errorf("referenced %s (count %d), want %s", ref.String(), p.n[0], tc.ref)
			}
			if tc.set[len(tc.set)-1] != '.' {
				if v := p.Victim(0); tc.set[v] != tc.next {
					t.Errorf("next victim way %d (%c), want %c", v, tc.set[v], tc.next)
				}
			}
		})
	}
}

// randomVictims fills a fully associative cache of ways lines, then n
// more lines, and returns the way each of those took.
func randomVictims(t *testing.T, ways int, seed uint64, n int) []int {
	cfg := fullyAssoc(ways, 1, Random)
	cfg.Seed = seed
	c := newValid(t, cfg, 8)
	for i := range ways {
		c.Fill(uint64(i)*8, nil)
	}
	if c.Stats.Evictions != 0 {
		t.Fatalf("filling %d free ways evicted %d lines", ways, c.Stats.Evictions)
	}
	var got []int
	for i := range n {
		la := uint64(ways + i)
		c.Fill(la*8, nil)
		got = append(got, slices.Index(c.tags, la+1))
	}
	return got
}

// TestRandomDirected: random replacement is splitmix64 from Seed: the
// same seed evicts the same ways, another seed others, every way may be
// drawn, and the first draws are the published splitmix64 outputs for
// seed 0 (0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f)
// scaled to the ways.
func TestRandomDirected(t *testing.T) {
	cases := []struct {
		ways int
		seed uint64
		want []int // the first victims
	}{
		{8, 0, []int{7, 3, 0}},
		{5, 0, []int{4, 2, 0}},
		{100, 0, []int{88, 43, 2}},
		{1, 12345, []int{0, 0, 0}},
	}
	for _, tc := range cases {
		if got := randomVictims(t, tc.ways, tc.seed, len(tc.want)); !slices.Equal(got, tc.want) {
			t.Errorf("%d ways seed %d: victims %v, want %v", tc.ways, tc.seed, got, tc.want)
		}
	}
	var st uint64
	for _, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		if z := splitmix64(&st); z != want {
			t.Fatalf("reference splitmix64 gave %#x, want %#x", z, want)
		}
	}
	for _, ways := range []int{2, 3, 8, 24} {
		a := randomVictims(t, ways, 42, 200)
		if b := randomVictims(t, ways, 42, 200); !slices.Equal(a, b) {
			t.Errorf("%d ways: seed 42 gave %v, then %v", ways, a, b)
		}
		if b := randomVictims(t, ways, 43, 200); slices.Equal(a, b) {
			t.Errorf("%d ways: seeds 42 and 43 gave the same victims %v", ways, a)
		}
		for w := range ways {
			if !slices.Contains(a, w) {
				t.Errorf("%d ways: way %d never drawn in 200 victims %v", ways, w, a)
			}
		}
	}
	// An invalid way is filled first: no draw, whatever the seed.
	s := newStepper(t, Random, 4, 99)
	if ev := s.run("A B C D -C E -A F"); ev != "" || s.ways() != "FBED" {
		t.Fatalf("evicted %q, set %s; want none, FBED", ev, s.ways())
	}
	if r := s.c.pol.(*random); r.s != 99 {
		t.Fatalf("fills into invalid ways drew from the sequence: state %#x", r.s)
	}
}
