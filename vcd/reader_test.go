package vcd

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// header declares top.clk (!, 1 bit) and top.sub.key (", 4 bits).
const header = `$date today $end
$version test $end
$timescale 1ns $end
$scope module top $end
$var wire 1 ! clk $end
$scope module sub $end
$var wire 4 " key [3:0] $end
$upscope $end
$upscope $end
$enddefinitions $end
`

// valid is a small file every malformed case below breaks in one way.
const valid = header + `#0
$dumpvars
0!
b0 "
$end
#4
1!
b1011 "
#8
0!
bx1 "
#12
z!
bz "
`

func TestParseValid(t *testing.T) {
	f, err := Parse(strings.NewReader(valid))
	if err != nil {
		t.Fatal(err)
	}
	if f.Timescale != "1ns" || f.Date != "today" || f.Version != "test" || f.End != 12 {
		t.Errorf("header = %q %q %q end %d", f.Timescale, f.Date, f.Version, f.End)
	}
	wantVars := []VarInfo{{"top.clk", 1, "!"}, {"top.sub.key", 4, `"`}}
	if !slices.Equal(f.Vars, wantVars) {
		t.Errorf("Vars = %+v, want %+v", f.Vars, wantVars)
	}
	for _, tc := range []struct {
		path string
		t    uint64
		want string
		ok   bool
	}{
		{"top.clk", 0, "0", true},
		{"top.clk", 3, "0", true},
		{"top.clk", 4, "1", true},
		{"top.clk", 12, "z", true},
		{"top.clk", 1000, "z", true},
		{"top.sub.key", 0, "0000", true},
		{"top.sub.key", 5, "1011", true},
		{"top.sub.key", 8, "xxx1", true}, // left-extended with x
		{"top.sub.key", 12, "zzzz", true},
		{"top.nosuch", 4, "", false},
	} {
		got, ok := f.ValueAt(tc.path, tc.t)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ValueAt(%s, %d) = %q %v, want %q %v", tc.path, tc.t, got, ok, tc.want, tc.ok)
		}
	}
	wantCh := []Change{{0, "0000"}, {4, "1011"}, {8, "xxx1"}, {12, "zzzz"}}
	if got := f.Changes("top.sub.key"); !slices.Equal(got, wantCh) {
		t.Errorf("Changes = %v, want %v", got, wantCh)
	}
}

func TestParseValidVariants(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"same id twice, same width", strings.Replace(valid, "$upscope $end\n$upscope", "$var wire 4 \" alias [3:0] $end\n$upscope $end\n$upscope", 1)},
		{"range glued to name", strings.Replace(valid, "key [3:0]", "key[3:0]", 1)},
		{"no range", strings.Replace(valid, "key [3:0]", "key", 1)},
		{"comments", strings.Replace(valid, "#8\n", "$comment hello $end\n#8\n", 1)},
		{"first time not zero", header + "#5\n1!\n"},
		{"no value changes", header},
		{"upper-case digits", header + "#0\nX!\nbZ1 \"\n"},
	} {
		if _, err := Parse(strings.NewReader(tc.in)); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestParseRejects has one case per rule of the strict reader; each error
// must name the line and the reason.
func TestParseRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		line int
		want string
	}{
		{"undeclared id", strings.Replace(valid, "b1011 \"", "b1011 #", 1), 18, `undeclared identifier "#"`},
		{"undeclared scalar id", strings.Replace(valid, "1!", "1%", 1), 17, "undeclared identifier"},
		{"id twice, other width", strings.Replace(valid, "$upscope $end\n$upscope", "$var wire 8 \" other [7:0] $end\n$upscope $end\n$upscope", 1), 8, "declared twice with different widths"},
		{"path twice", strings.Replace(valid, "$upscope $end\n$upscope", "$var wire 4 # key [3:0] $end\n$upscope $end\n$upscope", 1), 8, "declared twice"},
		{"extra $upscope", strings.Replace(valid, "$upscope $end\n", "$upscope $end\n$upscope $end\n$upscope $end\n", 1), 10, "unbalanced $upscope"},
		{"missing $upscope", strings.Replace(valid, "$upscope $end\n", "", 1), 9, "unbalanced $scope"},
		{"value wider than var", strings.Replace(valid, "b1011 \"", "b11011 \"", 1), 18, "wider than its 4-bit variable"},
		{"leading zeros too wide", strings.Replace(valid, "b1011 \"", "b01011 \"", 1), 18, "wider than"},
		{"scalar var, vector value", strings.Replace(valid, "1!", "b10 !", 1), 17, "wider than its 1-bit variable"},
		{"range does not match width", strings.Replace(valid, "key [3:0]", "key [7:0]", 1), 7, "range [7:0] is 8 bits, declared width is 4"},
		{"time repeated", strings.Replace(valid, "#8", "#4", 1), 19, "time not strictly increasing: #4 after #4"},
		{"time backwards", strings.Replace(valid, "#8", "#2", 1), 19, "time not strictly increasing: #2 after #4"},
		{"value before #0", header + "1!\n#0\n", 11, "before the first time line"},
		{"$dumpvars before #0", header + "$dumpvars\n0!\n$end\n#0\n", 11, "$dumpvars before the first time line"},
		{"missing $enddefinitions", strings.Replace(valid, "$enddefinitions $end\n", "", 1), 10, "missing $enddefinitions"},
		{"no $enddefinitions at all", strings.Split(valid, "$enddefinitions")[0], 9, "missing $enddefinitions"},
		{"unknown keyword in header", strings.Replace(valid, "$date", "$dat", 1), 1, "unknown keyword $dat"},
		{"unknown keyword in body", strings.Replace(valid, "$dumpvars", "$dumpvar", 1), 12, "unknown keyword $dumpvar"},
		{"declaration in body", valid + "$var wire 1 # late $end\n", 25, "$var after $enddefinitions"},
		{"malformed time", strings.Replace(valid, "#4", "#x4", 1), 16, `malformed time "#x4"`},
		{"empty time", strings.Replace(valid, "#4", "#", 1), 16, "malformed time"},
		{"time too large", strings.Replace(valid, "#12", "#9223372036854775808", 1), 22, "not below 2^63"},
		{"bad vector digit", strings.Replace(valid, "b1011", "b1021", 1), 18, "bad digit '2'"},
		{"vector without digits", strings.Replace(valid, "b1011", "b", 1), 18, "no digits"},
		{"vector without id", strings.Replace(valid, "b1011 \"", "b1011", 1), 18, "no identifier on its line"},
		{"scalar without id", strings.Replace(valid, "1!", "1", 1), 17, "no identifier"},
		{"garbage value", strings.Replace(valid, "1!", "q!", 1), 17, `malformed value change "q!"`},
		{"real value", strings.Replace(valid, "1!", "r1.5 !", 1), 17, "real value"},
		{"malformed $var", strings.Replace(valid, "$var wire 1 ! clk $end", "$var wire 1 ! $end", 1), 5, "malformed $var"},
		{"bad width", strings.Replace(valid, "wire 1 !", "wire 0 !", 1), 5, "width \"0\""},
		{"bad var type", strings.Replace(valid, "wire 1 !", "real 1 !", 1), 5, "unsupported type"},
		{"dotted scope", strings.Replace(valid, "module sub", "module a.b", 1), 6, "contains '.'"},
		{"bad scope type", strings.Replace(valid, "module sub", "box sub", 1), 6, "unknown scope type"},
		{"var outside scope", "$var wire 1 ! clk $end\n$enddefinitions $end\n", 1, "outside any $scope"},
		{"bad timescale", strings.Replace(valid, "1ns", "3ns", 1), 3, "malformed $timescale"},
		{"unterminated $comment", header + "#0\n$comment never closed\n", 12, "unterminated $comment"},
		{"unterminated $dumpvars", header + "#0\n$dumpvars\n0!\n", 13, "unterminated $dumpvars"},
		{"time inside $dumpvars", header + "#0\n$dumpvars\n#1\n$end\n", 13, "inside $dumpvars"},
		{"stray $end", valid + "$end\n", 25, "$end without an open section"},
		{"value in header", strings.Replace(valid, "$enddefinitions $end\n", "1!\n$enddefinitions $end\n", 1), 10, "malformed declaration"},
		{"time in header", strings.Replace(valid, "$enddefinitions $end\n", "#0\n$enddefinitions $end\n", 1), 10, "missing $enddefinitions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.in)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if !strings.Contains(pe.Reason, tc.want) || pe.Line != tc.line {
				t.Errorf("error %q, want line %d and %q", err, tc.line, tc.want)
			}
		})
	}
}

func TestParseLongLine(t *testing.T) {
	in := header + "#0\nb" + strings.Repeat("1", maxLine+1) + " !\n"
	if _, err := Parse(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "line longer") {
		t.Errorf("Parse = %v, want a line too long error", err)
	}
}

// FuzzParse checks that Parse never panics and that what it accepts can
// be queried.
func FuzzParse(f *testing.F) {
	f.Add(valid)
	f.Add(header)
	f.Add(strings.Replace(valid, "b1011 \"", "b1011 #", 1))
	f.Add(strings.Replace(valid, "#8", "#2", 1))
	f.Add("$scope module a $end $var wire 3 ! v [2:0] $end $upscope $end $enddefinitions $end #0 b1 !")
	f.Add("#")
	f.Add("$var wire 99999999999 ! v $end")
	f.Fuzz(func(t *testing.T, in string) {
		file, err := Parse(strings.NewReader(in))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("error %v has no line", err)
			}
			return
		}
		for _, v := range file.Vars {
			for _, ch := range file.Changes(v.Path) {
				if len(ch.Value) != v.Width {
					t.Fatalf("%s: value %q is not %d digits", v.Path, ch.Value, v.Width)
				}
				if got, ok := file.ValueAt(v.Path, ch.Time); !ok || got != ch.Value {
					t.Fatalf("%s at %d: ValueAt = %q, Changes = %q", v.Path, ch.Time, got, ch.Value)
				}
			}
		}
	})
}
