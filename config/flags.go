package config

import (
	"strings"

	"github.com/spf13/pflag"
)

// The parameters as command-line flags.

// FlagName is a parameter's flag: its name with "-" for "_"
// (mkc_cache.ways is --mkc-cache.ways). NormalizeFlag reads either.
func FlagName(param string) string { return strings.ReplaceAll(param, "_", "-") }

// NormalizeFlag makes a flag set read "_" in a flag name as "-", so that
// --mkc_cache.ways, the parameter's own name, works as --mkc-cache.ways.
func NormalizeFlag(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	return pflag.NormalizedName(FlagName(name))
}

// RegisterFlags adds one flag per parameter to fs (--mkc-cache.ways 8,
// FlagName), writing into c. A flag's errors name the parameter.
func (c *Config) RegisterFlags(fs *pflag.FlagSet) {
	for _, p := range c.Params() {
		f := fs.VarPF(p, FlagName(p.Name), "", p.Help)
		if p.IsBoolFlag() {
			f.NoOptDefVal = "true"
		}
	}
}

// Overlay sets on c every flag of fs that was given on the command line,
// from its value there: a configuration file read after the flags were
// parsed (--config) then yields to them. fs holds RegisterFlags's flags.
func (c *Config) Overlay(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		p, ok := c.Param(f.Name)
		if !ok || err != nil {
			return
		}
		err = p.Set(f.Value.String())
	})
	return err
}
