// Package protcheck is the protection checker stage: it takes a piece with
// the MKC the cache found for it and runs the checks of translation.md
// section 4 in their order (key index, variant, free, PD, QPN, range,
// rights, access mode, atomic alignment), then routes the piece.
//
//	InLoop (loop VC) ─┐                 ┌─> Done    failures, PA/SW_ICM/MEMIC segments
//	In (level-0 VC) ──┴─> [ check ] ────┼─> MTT     MTT pieces to the MTT walker
//	                                    ├─> KLM     level-0 KLM/KSM pieces to the KLM walker
//	                                    ├─> Nested  loop KLM/KSM pieces (reserved queue)
//	                                    ├─> Credit  loop pieces leaving the loop elsewhere
//	                                    └─> Ack     invalidation tokens, acknowledged
//
// One piece a cycle; the loop VC goes first so that recursion never waits
// behind level-0 traffic. The stage holds no state beyond its ports.//
// Registers: none that outlive a piece but the last key and status checked
// (fired_key, fired_status), written in place during Eval: the stage has
// no Commit.
package protcheck
