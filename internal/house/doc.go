// Package house holds the layer table of the house (DESIGN.md §12) and the
// tests that hold the code to it. It has no code of its own: the table is
// layers.txt, the upward imports the code still has are known.txt, and the
// tests read both against the import graph `go list` gives, with and without
// the temporal build tag.
//
// A package imports only from its own layer or below. TestLayers fails on an
// upward import that known.txt does not list, on a line of known.txt that is
// no longer true (the list only shrinks), on a package of the module missing
// from the table, on an entry for a package that is gone (unless marked
// planned), and on a package under internal/ or cmd/ that imports one under
// bench/.
//
// TestFigures computes the house figures from the Temporal build's
// graph, over the module's packages but bench/ and this one: the longest
// import chain (in packages, both ends counted), arrows per package, imports
// of a package for a single exported name (an import of the bottom layer, there
// to be imported so, and a thin main's import of its package for Main are not
// counted), internal/cli's fan-out, and non-test Go
// files over 300 lines under internal/ and cmd/. It fails when one exceeds
// its ceiling in the ceilings table of house_test.go. To print them, each as
// "figure: value (ceiling N, target T)" with its details:
//
//	go test ./internal/house -run Figures -v
package house
