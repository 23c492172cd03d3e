package main

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"mkeysim/config"
)

// newConfigCmd is 'mkeysim config'.
func newConfigCmd() *cobra.Command {
	var defaults bool
	c := &cobra.Command{
		Use:   "config --defaults",
		Short: "Print the configuration file with every parameter and its default",
		Long: `Prints the whole configuration file: every parameter, its default, what it
does and its range. Save it, edit it, and pass it to 'mkeysim run --config
FILE' (or sweep). Every parameter is also a flag named by its key, dotted,
with - for _: mkc_cache.ways is --mkc-cache.ways.`,
		Example: `  mkeysim config --defaults > my.toml
  mkeysim run --config my.toml --workload.accesses 20000`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !defaults {
				return usagef("want --defaults")
			}
			cfg := config.Default()
			var b bytes.Buffer
			cfg.WriteDefaults(&b)
			return writeStdout(c.OutOrStdout(), c.ErrOrStderr(), "config", b.Bytes())
		},
	}
	c.Flags().BoolVar(&defaults, "defaults", false, "print every parameter with its default")
	return c
}

// effectiveConfig is the configuration a run uses: cfg (the defaults,
// with the parameter flags given written into it) or, with --config FILE,
// the file with those flags over it; validated. Errors name the file or
// the parameter.
func effectiveConfig(flags *pflag.FlagSet, file string, cfg config.Config) (config.Config, error) {
	if file != "" {
		// Read, not Load: the rules between parameters and a trace's
		// file are checked once the flags are over the file (a file of
		// kind = "trace" with --workload.trace-file given as a flag).
		fromFile, err := config.Read(file, "")
		if err != nil {
			return cfg, fmt.Errorf("--config: %v", err)
		}
		if err := fromFile.Overlay(flags); err != nil {
			return cfg, err
		}
		cfg = fromFile
	}
	return cfg, cfg.Validate()
}
