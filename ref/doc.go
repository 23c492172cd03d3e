// Package ref is the golden untimed model of the MKey translation path: the
// MKey table, the commands that change it (CREATE/DESTROY/QUERY_MKEY, UMR,
// local and remote invalidation, ODP page-fault resume) and translation in
// every access mode, with the checks of translation.md in their order.
//
// It is a pure function of its state: the clocked model, the testbench's
// scoreboard and the golden vectors all take it as the oracle.
package ref
