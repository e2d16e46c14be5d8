package gitx

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/textcut"
)

// moved names how ref (a branch's name, or HEAD) went from was to is.
func (g *Guard) moved(ctx context.Context, name, was, is string) evidence.RecordChange {
	switch {
	case is == "":
		return evidence.RecordChange{Kind: evidence.RecordRewritten, What: fmt.Sprintf("deleted %s (it was at %s)", name, short(was))}
	case was == "":
		return evidence.RecordChange{Kind: evidence.RecordCommitted, What: fmt.Sprintf("committed on %s, which had no commit (%s)", name, short(is))}
	case g.ancestor(ctx, was, is):
		return evidence.RecordChange{Kind: evidence.RecordCommitted, What: fmt.Sprintf("committed on %s: %s %s", name, g.count(ctx, was, is), g.subject(ctx, is))}
	case g.ancestor(ctx, is, was):
		return evidence.RecordChange{Kind: evidence.RecordReset, What: fmt.Sprintf("reset %s back %s, from %s to %s", name, g.count(ctx, is, was), short(was), short(is))}
	}
	return evidence.RecordChange{Kind: evidence.RecordRewritten, What: fmt.Sprintf("rewrote the history of %s: it moved from %s to %s, which does not contain it", name, short(was), short(is))}
}

func (g *Guard) ancestor(ctx context.Context, a, b string) bool {
	_, err := git(ctx, g.top, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

func (g *Guard) count(ctx context.Context, from, to string) string {
	out, err := git(ctx, g.top, "rev-list", "--count", from+".."+to)
	if n := strings.TrimSpace(out); err == nil {
		if n == "1" {
			return "1 commit"
		}
		return n + " commits"
	}
	return "commits"
}

func (g *Guard) subject(ctx context.Context, commit string) string {
	out, err := git(ctx, g.top, "log", "-1", "--format=%s", commit)
	if s := strings.TrimSpace(out); err == nil && s != "" {
		return fmt.Sprintf("(%s %q)", short(commit), textcut.Runes(s, 60))
	}
	return "(" + short(commit) + ")"
}
