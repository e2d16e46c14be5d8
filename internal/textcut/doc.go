// Package textcut owns cutting text short for a line of output: a cut falls on
// a rune boundary, so what comes out of valid UTF-8 is valid UTF-8, and it is
// marked with [Ellipsis]. A bound counts the ellipsis, so the result never
// exceeds it: [Runes] for what a person reads in columns (a status line, an SVG
// label, a commit subject), [Bytes] for what is kept or sent with a size limit
// (a reason in state, an ntfy message). [Line] puts text on one line first.
package textcut
