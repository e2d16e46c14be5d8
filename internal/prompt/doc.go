// Package prompt composes the prompt of one iteration and counts its tokens.
//
// It owns the prompts embedded in the binary (the built-in procedures, see
// [Builtins]), the assembly of a procedure's parts into one prompt ([Compose]),
// and token counting with a real BPE tokenizer ([CountTokens]).
package prompt
