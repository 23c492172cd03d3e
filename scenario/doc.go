// Package scenario reads scenario files and writes result lines, the
// stable formats of scenario.md that both models, the tests, the golden
// vectors and bug reports share.
//
// Parsing is strict: an unknown field, a value wider than its field, a
// missing required field or a name that does not exist is an *Error naming
// the JSON path (ops[3].len) and the reason.
package scenario
