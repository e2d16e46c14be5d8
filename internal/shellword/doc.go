// Package shellword is what agentloop knows of a POSIX shell's words: whether
// a command line has shell syntax and so must run under sh -c
// ([NeedsShell]), and an argv quoted as a command line a person can copy
// ([Join]). One set of shell characters serves both.
package shellword
