// Package jsonscan owns the fast reading of JSON text that the parsers of agent
// and gate output share: finding the members of an object and the elements of
// an array without decoding their values, and decoding the few small values a
// parser needs (strings, numbers, booleans).
//
// The scanner checks structure only as far as it needs to find the ends of
// values, so a parser can skip megabytes of tool output at memchr speed and
// allocate nothing for what it skips. Values it hands on are raw slices of the
// input; [Str], [Unquote], [Num] and [Bool] decode them. A value that must be
// fully validated is decoded with encoding/json by the caller.
package jsonscan
