// Package scenario reads scenario files and writes result lines, the
// stable formats of scenario.md that both models, the tests, the golden
// vectors and bug reports share.
//
// Parsing is strict: an unknown or repeated field, a value wider than its
// field, a missing required field or a name that does not exist is an
// *Error naming the JSON path (ops[3].len) and the reason; a value quoted
// in an error is cut after 64 characters. Parsing reads the document in
// place: its peak heap is the Scenario it returns plus a constant.
package scenario
