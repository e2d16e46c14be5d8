// Package prompt composes the prompt of one iteration.
//
// It owns the prompts embedded in the binary (the built-in procedures build
// and fix-tests, see [Builtins]), the assembly of a procedure's [Parts] into
// one prompt ([Compose]). Its tokens are counted by package tokens.
//
// A composed prompt is, in order: the preamble; "Iteration i of N" (just
// "Iteration i" when unlimited); the task; "# Context" with each context file
// under a "## PATH" heading, fenced, and inline context text as it is;
// "# Instructions" with the observe, orient, decide and act phases; the
// feedback of the last iteration; the strategy's instructions (refine,
// expand, simplify, with lessons and focus); and the human's guidance.
// The preamble and phases are Go text/template templates over [Data]
// ({{.Iteration}}, {{.MaxIterations}}, {{.Feedback}}, {{range .Gates}}…,
// and the function join); an error names the part, its file and line.
package prompt
