package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// KnownFile is the list of known mutants, from the repository's root.
const KnownFile = "bench/mutate/known.txtar"

// Known mutants are bugs that once survived their package's tests and got a
// test of their own: each is tested by name, whatever the sample, so that a
// test which stops catching one is noticed (-known). Most are not operator
// mutants (a dropped return, a period taken in UTC, a count taken from the
// wrong list).
//
// The list is a txtar archive of pairs of files: the first named
// "PATH: what the bug does" holds text that occurs exactly once in PATH
// (from the repository's root), the second, named "=>", what replaces it.

// parseKnown reads the known mutants of a list, without placing them.
func parseKnown(data []byte) ([]Mutant, error) {
	a := txtar.Parse(data)
	if len(a.Files)%2 != 0 {
		return nil, fmt.Errorf("%d sections: want pairs of \"PATH: what the bug does\" and \"=>\"", len(a.Files))
	}
	var out []Mutant
	for i := 0; i < len(a.Files); i += 2 {
		old, repl := a.Files[i], a.Files[i+1]
		path, name, ok := strings.Cut(old.Name, ": ")
		if !ok || strings.TrimSpace(name) == "" || path == "" {
			return nil, fmt.Errorf("section %q: want \"PATH: what the bug does\"", old.Name)
		}
		if repl.Name != "=>" {
			return nil, fmt.Errorf("section %q after %q: want \"=>\"", repl.Name, old.Name)
		}
		if len(bytes.TrimSpace(old.Data)) == 0 {
			return nil, fmt.Errorf("%s: no text to replace", old.Name)
		}
		out = append(out, Mutant{File: filepath.FromSlash(path), Old: string(old.Data), New: string(repl.Data), Kind: "known", Name: name})
	}
	return out, nil
}

// place finds m's text in src, which must hold it exactly once, and sets
// where it is.
func place(m *Mutant, src []byte) error {
	switch n := bytes.Count(src, []byte(m.Old)); n {
	case 1:
	case 0:
		return fmt.Errorf("%s: %s: its text is not in the file any more: update %s", m.File, m.Name, KnownFile)
	default:
		return fmt.Errorf("%s: %s: its text is in the file %d times: give more of it in %s", m.File, m.Name, n, KnownFile)
	}
	m.Off = bytes.Index(src, []byte(m.Old))
	before := src[:m.Off]
	m.Line = bytes.Count(before, []byte("\n")) + 1
	m.Col = m.Off - bytes.LastIndexByte(before, '\n')
	return nil
}

// loadKnown reads the list at path and places each mutant in its file
// (relative to the current directory, the repository's root).
func loadKnown(path string) ([]Mutant, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ms, err := parseKnown(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i := range ms {
		src, err := os.ReadFile(ms[i].File)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if err := place(&ms[i], src); err != nil {
			return nil, err
		}
	}
	return ms, nil
}

// knownDirs are the packages of the known mutants, in the list's order,
// only those of dirs when dirs names any.
func knownDirs(known []Mutant, dirs []string) []string {
	var out []string
	for _, m := range known {
		d := filepath.Dir(m.File)
		if !containsDir(out, d) && (len(dirs) == 0 || containsDir(dirs, d)) {
			out = append(out, d)
		}
	}
	return out
}

func containsDir(dirs []string, d string) bool {
	for _, x := range dirs {
		if filepath.Clean(x) == d {
			return true
		}
	}
	return false
}

// knownOf are the known mutants of the package in dir.
func knownOf(known []Mutant, dir string) []Mutant {
	var out []Mutant
	for _, m := range known {
		if filepath.Dir(m.File) == filepath.Clean(dir) {
			out = append(out, m)
		}
	}
	return out
}
