// Package prompt composes the prompt of one iteration and counts its tokens.
//
// It owns the prompts embedded in the binary (the built-in procedures build
// and fix-tests, see [Builtins]), the assembly of a procedure's [Parts] into
// one prompt ([Compose]), and token counting ([CountTokens]).
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
//
// Tokens are counted with github.com/tiktoken-go/tokenizer and the
// cl100k_base encoding, whose BPE vocabulary is compiled into the binary: no
// network and no cache directory at run time. o200k_base is embedded by the
// same module too; cl100k_base was chosen because it loads faster and the
// agents we run (Claude in the first place) publish no tokenizer, so any
// count is an estimate within a few percent.
package prompt
