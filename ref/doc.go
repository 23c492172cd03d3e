// Package ref is the golden untimed model of the MKey translation path: the
// MKey table, the commands that change it (CREATE/DESTROY/QUERY_MKEY, UMR,
// local and remote invalidation, ODP page-fault resume) and translation in
// every access mode, with the checks of translation.md in their order.
//
// It is a pure function of its state: the clocked model, the testbench's
// scoreboard and the golden vectors all take it as the oracle.
//
// The translation itself (translate.go) reads as the specification does.
// What makes it fast at a million keys lives apart: the MKey table is a
// keyTable (keytable.go), open-addressed with each context inline in its
// slot, and the ICM's pages are found through a pageDir (icmdir.go), a
// dense directory like the HCA's own ICM page tables. A translation of an
// MTT key then touches the context's slot and the MTT entry, and nothing
// else that is not already in cache. A large table and a large ICM lie on
// 2 MB pages (internal/hugemem), as the HCA maps its ICM in large chunks:
// with 4 KB pages those two reads would also miss the TLB nearly every
// time.
package ref
