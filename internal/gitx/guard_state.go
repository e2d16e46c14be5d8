package gitx

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/agentloop/agentloop/internal/textcut"
)

// guardState is what a Guard compares.
type guardState struct {
	refs   map[string]string
	branch string
	head   string
	logEnd int64
}

// read reads the state and a stat of the reflog: from the ref files where
// refs are files and hold plain names, as git would read them, else with three
// git processes (refs, HEAD's branch, HEAD's commit). Reading it costs no
// process in the common case, twice an iteration.
func (g *Guard) read(ctx context.Context) (guardState, error) {
	s := guardState{refs: map[string]string{}, logEnd: -1}
	if g.reflog != "" {
		if info, err := os.Stat(g.reflog); err == nil {
			s.logEnd = info.Size()
		}
	}
	if refs, ok := g.store.list(g.prefix); ok {
		if branch, head, ok := g.store.head(); ok {
			s.refs, s.branch, s.head = refs, branch, head
			return s, nil
		}
	}
	out, err := git(ctx, g.top, "for-each-ref", "--format=%(objectname) %(refname)", g.prefix)
	if err != nil {
		return s, err
	}
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		if oid, ref, ok := strings.Cut(line, " "); ok {
			s.refs[ref] = oid
		}
	}
	out, err = git(ctx, g.top, "symbolic-ref", "-q", "HEAD")
	switch {
	case err == nil:
		s.branch = strings.TrimSpace(out)
	case exitCode(err) != 1: // 1: detached
		return s, err
	}
	s.head = resolveCommit(ctx, g.top, "HEAD")
	return s, nil
}

// resolve returns the commit a branch names, "" when it does not exist.
func (g *Guard) resolve(ctx context.Context, branch string) string {
	if oid, ok := g.store.resolve(branch); ok {
		return oid
	}
	return resolveCommit(ctx, g.top, branch)
}

// reflogLines returns the messages of the entries HEAD's reflog gained since
// the record ("commit: fix", "checkout: moving from main to x"), or a note
// when the reflog was cut or removed.
func (g *Guard) reflogLines(end int64) []string {
	if g.reflog == "" || g.logEnd < 0 && end < 0 {
		return nil
	}
	if end < g.logEnd {
		return []string{"HEAD's reflog was cut or deleted"}
	}
	f, err := os.Open(g.reflog)
	if errors.Is(err, fs.ErrNotExist) || err != nil {
		return nil
	}
	defer f.Close()
	start := max(g.logEnd, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, start, min(end-start, 1<<20)))
	if err != nil {
		return nil
	}
	var out []string
	for line := range bytes.SplitSeq(bytes.TrimSpace(b), []byte{'\n'}) {
		if _, msg, ok := bytes.Cut(line, []byte{'\t'}); ok && len(msg) > 0 {
			out = append(out, textcut.Runes(string(msg), 80))
		}
	}
	return out
}
