// Package ui owns what a person sees while a loop runs: timestamped progress lines
// built from the loop's events, a live status line on a terminal, and the JSON
// event stream for machines (--log-format json). It is not the log: diagnostic
// logging goes through log/slog elsewhere.
package ui
