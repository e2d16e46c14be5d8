// Package tokens counts the tokens of a text ([Count]) the way a prompt's
// token budget is judged: with github.com/tiktoken-go/tokenizer and the
// cl100k_base vocabulary ([Encoding]), embedded in the binary and loaded on
// first use. The agents we run (Claude in the first place) publish no
// tokenizer, so any count is an estimate; cl100k_base counts English and code
// within a few percent of Claude's own.
package tokens
