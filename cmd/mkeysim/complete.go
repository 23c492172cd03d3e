package main

import (
	"strings"

	"github.com/spf13/cobra"

	"mkeysim/config"
	"mkeysim/rtl"
	"mkeysim/sweep"
	"mkeysim/vectors"
)

// addCompletions teaches the shell completion (mkeysim completion) what
// the flags and arguments take: scenario and config files by extension,
// the parameters --vary can vary, the units, levels and policies by name.
// Flag names themselves, the dotted parameters among them, cobra
// completes already.
func addCompletions(root *cobra.Command) {
	files := func(ext ...string) cobra.CompletionFunc {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return ext, cobra.ShellCompDirectiveFilterFileExt
		}
	}
	words := func(w ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(w, cobra.ShellCompDirectiveNoFileComp)
	}
	dirs := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
	byFlag := map[string]cobra.CompletionFunc{
		"config":                files("toml"),
		"scenario":              files("json"),
		"log-level":             words("trace", "debug", "info", "warn", "error", "off"),
		"mkc-cache.replacement": words(rtl.ReplLRU, rtl.ReplRandom),
		"unit":                  words(append(vectors.Units(), "all")...),
		"vary":                  completeVary,
		"examples":              dirs,
		"reference":             files("csv"),
	}
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		for name, fn := range byFlag {
			if c.Flags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, fn)
			}
		}
		if c.Name() == "sweep" || c.Name() == "vectors" {
			// Their --out is a directory.
			c.RegisterFlagCompletionFunc("out", dirs)
		}
		switch c.Name() {
		case "run", "ref":
			c.ValidArgsFunction = files("json")
		case "compare":
			c.ValidArgsFunction = files("jsonl")
		case "pack":
			c.ValidArgsFunction = files("json")
		case "unpack", "version", "config", "sweep", "vectors":
			c.ValidArgsFunction = cobra.NoFileCompletions
		case "merge":
			c.ValidArgsFunction = dirs
		case "plot":
			c.ValidArgsFunction = dirs
			c.RegisterFlagCompletionFunc("y", words(sweep.FigureNames()...))
			c.RegisterFlagCompletionFunc("x", completeAxis)
			c.RegisterFlagCompletionFunc("group", completeAxis)
		}
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(root)
}

// completeVary offers PARAM= for every parameter the --vary flag can vary.
func completeVary(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	cfg := config.Default()
	var out []string
	for _, p := range cfg.Params() {
		if strings.HasPrefix(p.Name, toComplete) {
			out = append(out, p.Name+"=")
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// completeAxis offers the parameters varied by the sweep whose output
// 'mkeysim plot' was given (its RESULTS argument), when it can be read.
func completeAxis(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	res, err := sweep.ReadAny(args[0])
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, a := range res.Axes {
		if strings.HasPrefix(a.Name, toComplete) {
			out = append(out, a.Name)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
