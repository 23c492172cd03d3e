package rtl

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// A unit's parameter table is the first block of tab-indented lines (a
// code block of the doc comment) after a heading that begins
// "# Parameters" in its package's doc.go. Each row is columns apart by two
// or more spaces: the field's Go name (optional; a column that begins with
// a capital), its toml key (dotted within the unit for a nested table:
// cache.entries), its default as the configuration file writes it (a
// number, 0x hex allowed, false or true, a quoted string), then any words.
// The table holds every parameter of the unit, once.
var tableCols = regexp.MustCompile(`\s{2,}`)

// docRow is a row of a parameter table.
type docRow struct {
	line       string
	field, key string // field "" when the table has no field column
	value      string
}

// parameterTable returns the rows of the parameter table in the doc
// comment text, and whether it has one; a heading without a table is an
// error.
func parameterTable(t *testing.T, file, text string) ([]docRow, bool) {
	t.Helper()
	lines := strings.Split(text, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "# Parameters") {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return nil, false
	}
	var rows []docRow
	for _, l := range lines[start:] {
		if strings.HasPrefix(l, "# ") {
			break
		}
		if !strings.HasPrefix(l, "\t") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		cols := tableCols.Split(strings.TrimSpace(l), -1)
		r := docRow{line: strings.TrimSpace(l)}
		if unicode.IsUpper([]rune(cols[0])[0]) {
			r.field, cols = cols[0], cols[1:]
		}
		if len(cols) < 2 {
			t.Errorf("%s: parameter row %q: want [Field] key default [words], columns two spaces apart", file, r.line)
			continue
		}
		r.key, r.value = cols[0], cols[1]
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Errorf("%s: a # Parameters heading without a table (tab-indented rows) under it", file)
	}
	return rows, true
}

// param is a leaf of a configuration: its Go field and value.
type param struct {
	field string
	v     reflect.Value
}

// leaves lists the leaf parameters of the struct v by dotted toml key.
func leaves(v reflect.Value, prefix string, out map[string]param) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		key, opts, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if key == "" || key == "-" || !f.IsExported() {
			continue
		}
		if v.Field(i).Kind() == reflect.Struct {
			sub := prefix + key + "."
			if opts == "flat" { // its parameters sit at its parent's level
				sub = prefix
			}
			leaves(v.Field(i), sub, out)
			continue
		}
		out[prefix+key] = param{field: f.Name, v: v.Field(i)}
	}
}

// unitDefaults maps each package directory under rtl/ ("rtl/mptcache";
// "rtl" for the top) to its defaults, as DefaultConfig holds them: the
// top's own Config, and every unit's Config that it holds.
func unitDefaults() map[string]reflect.Value {
	d := reflect.ValueOf(DefaultConfig())
	out := map[string]reflect.Value{"rtl": d}
	for i := 0; i < d.NumField(); i++ {
		if f := d.Field(i); f.Kind() == reflect.Struct {
			pkg := strings.TrimPrefix(f.Type().PkgPath(), "mkeysim/")
			if _, ok := out[pkg]; ok && f.Type().Name() != "Config" {
				// A second table of a package (pcie.HostConfig, the
				// [host] table, beside pcie.Config): the doc's table is
				// its Config's.
				continue
			}
			out[pkg] = f
		}
	}
	return out
}

// sameValue reports whether the table's text s writes the value v.
func sameValue(s string, v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x, err := strconv.ParseInt(s, 0, 64)
		return err == nil && x == v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x, err := strconv.ParseUint(s, 0, 64)
		return err == nil && x == v.Uint()
	case reflect.Bool:
		x, err := strconv.ParseBool(s)
		return err == nil && x == v.Bool()
	case reflect.Float32, reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		return err == nil && x == v.Float()
	case reflect.String:
		x, err := strconv.Unquote(s)
		return err == nil && x == v.String()
	}
	return false
}

// TestDocParameterTables: the parameter table of every package doc.go
// under rtl/ that has one gives every parameter of the package's Config,
// each once, under its toml key (and Go name, when the table names
// fields), with the default DefaultConfig gives it. A new unit whose doc
// has a table is checked without a change here, once rtl.Config holds its
// Config.
func TestDocParameterTables(t *testing.T) {
	defaults := unitDefaults()
	tables := 0
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "doc.go" {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil || f.Doc == nil {
			return err
		}
		file := path.Join("rtl", filepath.ToSlash(p))
		rows, ok := parameterTable(t, file, f.Doc.Text())
		if !ok {
			return nil
		}
		tables++
		pkg := path.Dir(file)
		def, ok := defaults[pkg]
		if !ok {
			t.Errorf("%s has a parameter table, but rtl.Config holds no Config of %s to check it against", file, pkg)
			return nil
		}
		params := map[string]param{}
		leaves(def, "", params)
		seen := map[string]bool{}
		for _, r := range rows {
			p, ok := params[r.key]
			switch {
			case !ok:
				t.Errorf("%s: %q: %s is no parameter of %s", file, r.line, r.key, def.Type())
			case seen[r.key]:
				t.Errorf("%s: %q: %s is in the table twice", file, r.line, r.key)
			case r.field != "" && r.field != p.field:
				t.Errorf("%s: %q: %s is the field %s, not %s", file, r.line, r.key, p.field, r.field)
			case !sameValue(r.value, p.v):
				t.Errorf("%s: %q: the default of %s is %#v (%s.DefaultConfig), not %s", file, r.line, r.key, p.v.Interface(), path.Base(pkg), r.value)
			}
			seen[r.key] = true
		}
		for k := range params {
			if !seen[k] {
				t.Errorf("%s: the parameter table leaves out %s (default %#v)", file, k, params[k].v.Interface())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tables < 2 {
		t.Errorf("%d parameter tables found under rtl/, want at least those of rtl/mptcache and rtl/pcie", tables)
	}
}
