// Package layers holds the test that enforces the import rules of
// architecture.md: dependencies flow one way (prm <- scenario <- ref <-
// rtl/* <- tb <- config <- sweep, cmd), vcd depends on nothing of the
// project, units never import each other nor anything above the shared
// rtl packages, only the top rtl/ imports the units, and tb learns about
// a unit only through what the unit declares to rtl/sim.
package layers
