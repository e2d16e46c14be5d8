package diff

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sort"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// Options says what the analysis checks paths against. Each is a list of globs
// as [Glob] reads them.
type Options struct {
	TestGlobs      []string // extra test-file patterns beyond the built-in conventions
	ProtectedPaths []string // paths whose change needs a human ("auth/**", ".github/**")
	Scope          []string // where the task may change files; empty means anywhere
}

// Analyze reads the facts of a unified diff: the files and lines changed, a
// normalized hash, test tampering, protected paths, files outside scope, new
// dependencies, exported Go API changes and the number of secrets added (never the
// secrets themselves). TreeHash is left for the caller, who knows the tree.
func Analyze(unified string, o Options) evidence.DiffFacts {
	files := parse(unified)
	var facts evidence.DiffFacts
	if len(files) == 0 {
		return facts
	}
	for _, f := range files {
		p := f.Path()
		facts.Files = append(facts.Files, p)
		for _, l := range f.Lines {
			switch l.Op {
			case '+':
				facts.Added++
			case '-':
				facts.Deleted++
			}
		}
		for _, q := range paths(f) {
			if matchAny(o.ProtectedPaths, q) {
				facts.ProtectedTouched = append(facts.ProtectedTouched, q)
			}
			if len(o.Scope) > 0 && !matchAny(o.Scope, q) {
				facts.OutsideScope = append(facts.OutsideScope, q)
			}
		}
	}
	facts.Hash = hash(files)
	tamper(extraTests(files, o.TestGlobs), &facts)
	facts.NewDeps = newDeps(files)
	facts.ExportedChanged = exportedChanges(files)
	facts.SecretsFound = countSecrets(files)

	facts.Files = uniq(facts.Files)
	facts.TestFilesChanged = uniq(facts.TestFilesChanged)
	facts.TestFilesDeleted = uniq(facts.TestFilesDeleted)
	facts.ProtectedTouched = uniq(facts.ProtectedTouched)
	facts.OutsideScope = uniq(facts.OutsideScope)
	return facts
}

// paths returns the paths a file change touches: both sides of a rename.
func paths(f *fileDiff) []string {
	if f.Old != "" && f.New != "" && f.Old != f.New {
		return []string{f.Old, f.New}
	}
	return []string{f.Path()}
}

// extraTests marks as tests the files that match the user's test globs, by
// wrapping them so that isTestFile sees a tests/ directory.
func extraTests(files []*fileDiff, globs []string) []*fileDiff {
	if len(globs) == 0 {
		return files
	}
	out := make([]*fileDiff, len(files))
	for i, f := range files {
		out[i] = f
		if !isTestFile(f.Path()) && matchAny(globs, f.Path()) {
			g := *f
			g.forceTest = true
			out[i] = &g
		}
	}
	return out
}

// hash is the sha256 of the normalized change: per file its paths and its hunks'
// changed lines with all whitespace removed, a line removed and re-added (in a
// whitespace-only edit) cancelled out, hunks sorted and files sorted. Line numbers
// and context do not count, so the same edit made again hashes the same.
func hash(files []*fileDiff) string {
	var parts []string
	for _, f := range files {
		var b strings.Builder
		b.WriteString(f.Old + "\x00" + f.New + "\x00")
		if f.Binary {
			b.WriteString("binary " + f.Index)
		}
		var hunks []string
		for start := 0; start < len(f.Lines); {
			end := start
			for end < len(f.Lines) && f.Lines[end].Hunk == f.Lines[start].Hunk {
				end++
			}
			if h := normHunk(f.Lines[start:end]); h != "" {
				hunks = append(hunks, h)
			}
			start = end
		}
		sort.Strings(hunks)
		b.WriteString(strings.Join(hunks, "\x01"))
		parts = append(parts, b.String())
	}
	sort.Strings(parts)
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x02")))
	return hex.EncodeToString(sum[:])
}

// normHunk renders a hunk's changes without whitespace, cancelling lines that
// were removed and added back unchanged but for whitespace.
func normHunk(lines []line) string {
	count := map[string][2]int{} // squashed text → removed, added
	for _, l := range lines {
		c := count[squash(l.Text)]
		switch l.Op {
		case '-':
			c[0]++
		case '+':
			c[1]++
		}
		count[squash(l.Text)] = c
	}
	skip := map[string][2]int{}
	for k, c := range count {
		m := min(c[0], c[1])
		skip[k] = [2]int{m, m}
	}
	var out []string
	for _, l := range lines {
		side := 0
		switch l.Op {
		case '+':
			side = 1
		case ' ':
			continue
		}
		s := squash(l.Text)
		if sk := skip[s]; sk[side] > 0 {
			sk[side]--
			skip[s] = sk
			continue
		}
		out = append(out, string(l.Op)+s)
	}
	return strings.Join(out, "\n")
}

// squash removes every whitespace character.
func squash(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// uniq sorts and deduplicates, keeping nil for nothing.
func uniq(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	return slices.Compact(s)
}
