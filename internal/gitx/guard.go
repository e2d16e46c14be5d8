package gitx

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// Guard is what agentloop recorded of a work tree's git state before an agent
// ran: the run's checkpoint refs, the branch HEAD is on and its commit, and
// where HEAD's reflog ended. [Guard.Check] compares the repository with it
// after the agent, puts back what the agent changed and says what that was.
//
// What it puts back: the run's refs (deleted ones restored, moved ones reset,
// new ones under the run's prefix removed), the branch's commit and HEAD on
// the branch. The work tree and the index stay as the agent left them: the
// iteration's checkpoint records that tree, and its start checkpoint the tree
// before the agent.
type Guard struct {
	top    string
	store  refStore // reads the state from the files where refs are files
	prefix string
	refs   map[string]string // ref → commit, under prefix
	branch string            // HEAD's branch ("refs/heads/main"), "" when detached
	head   string            // HEAD's commit, "" before the first commit
	reflog string            // HEAD's reflog file, "" when refs are not files
	logEnd int64             // its size then, -1 when it did not exist
}

// Guard records the state of the run's refs under prefix (such as
// "refs/agentloop/build/r1/"), the branch and HEAD, for [Guard.Check].
func (w *Workspace) Guard(ctx context.Context, prefix string) (*Guard, error) {
	c := w.checkpointer()
	if err := c.learn(ctx); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(prefix, "refs/") || !strings.HasSuffix(prefix, "/") {
		return nil, fmt.Errorf("guard refs %q: want a ref folder such as refs/agentloop/NAME/RUN/", prefix)
	}
	g := &Guard{top: c.repo.top, store: c.refs(), prefix: prefix, logEnd: -1}
	if c.refs().files() {
		g.reflog = filepath.Join(c.repo.gitDir, "logs", "HEAD")
	}
	s, err := g.read(ctx)
	if err != nil {
		return nil, fmt.Errorf("record the git state of %s: %w", g.top, err)
	}
	g.refs, g.branch, g.head, g.logEnd = s.refs, s.branch, s.head, s.logEnd
	return g, nil
}

// GuardRecords is [Workspace.Guard] for the engine: the check it returns is
// [Guard.Check].
func (w *Workspace) GuardRecords(ctx context.Context, prefix string) (func(context.Context) evidence.RecordChanges, error) {
	g, err := w.Guard(ctx, prefix)
	if err != nil {
		return nil, err
	}
	return g.Check, nil
}

// Check compares the repository with the recorded state, puts back the run's
// refs, the branch and HEAD, and returns what the agent changed (nil when
// nothing). It goes on after a failed repair, which the change then names as
// not repaired.
func (g *Guard) Check(ctx context.Context) evidence.RecordChanges {
	now, err := g.read(ctx)
	if err != nil {
		return evidence.RecordChanges{{Kind: evidence.RecordUnreadable,
			What: fmt.Sprintf("the git state of %s could not be read after the agent: %v", g.top, err)}}
	}
	ran := g.reflogLines(now.logEnd)
	var out evidence.RecordChanges
	out = append(out, g.checkRefs(ctx, now)...)
	out = append(out, g.checkHead(ctx, now, ran)...)
	if !slices.ContainsFunc(out, func(c evidence.RecordChange) bool {
		return c.Kind != evidence.RecordRefDeleted && c.Kind != evidence.RecordRefMoved && c.Kind != evidence.RecordRefAdded
	}) {
		// HEAD and the branch are where they were: a reset that moved nothing
		// still threw away what the work tree held.
		for _, m := range ran {
			if strings.HasPrefix(m, "reset:") {
				out = append(out, evidence.RecordChange{Kind: evidence.RecordReset,
					What:     "ran git reset (" + m + "): uncommitted changes in the work tree may be lost; the iteration's start checkpoint holds them",
					Repaired: "the branch did not move"})
				break
			}
		}
	}
	return out
}

// checkRefs puts back the run's refs.
func (g *Guard) checkRefs(ctx context.Context, now guardState) evidence.RecordChanges {
	var out evidence.RecordChanges
	for _, ref := range sortedKeys(g.refs) {
		was := g.refs[ref]
		is, ok := now.refs[ref]
		if ok && is == was {
			continue
		}
		c := evidence.RecordChange{Kind: evidence.RecordRefDeleted, What: "deleted " + ref}
		if ok {
			c = evidence.RecordChange{Kind: evidence.RecordRefMoved, What: fmt.Sprintf("moved %s from %s to %s", ref, short(was), short(is))}
		}
		if _, err := git(ctx, g.top, "update-ref", "-m", "agentloop: restored after the agent changed it", ref, was); err != nil {
			c.What += fmt.Sprintf(": %s could not be restored: %v", short(was), err)
		} else {
			c.Repaired = "restored"
		}
		out = append(out, c)
	}
	for _, ref := range sortedKeys(now.refs) {
		if _, ok := g.refs[ref]; ok {
			continue
		}
		c := evidence.RecordChange{Kind: evidence.RecordRefAdded, What: fmt.Sprintf("created %s at %s", ref, short(now.refs[ref]))}
		if _, err := git(ctx, g.top, "update-ref", "-d", ref, now.refs[ref]); err != nil {
			c.What += fmt.Sprintf(": could not be removed: %v", err)
		} else {
			c.Repaired = "removed"
		}
		out = append(out, c)
	}
	return out
}

// checkHead puts the branch back at its commit and HEAD back on the branch (or
// at its detached commit).
func (g *Guard) checkHead(ctx context.Context, now guardState, ran []string) evidence.RecordChanges {
	var out evidence.RecordChanges
	did := ""
	if len(ran) > 0 {
		did = " (git: " + strings.Join(lastN(ran, 3), "; ") + ")"
	}
	if g.branch == "" {
		// Detached: HEAD itself is the record.
		if now.branch == "" && now.head == g.head {
			return nil
		}
		c := g.moved(ctx, "HEAD", g.head, now.head)
		if now.branch != "" {
			c = evidence.RecordChange{Kind: evidence.RecordSwitched, What: "put HEAD on the branch " + branchName(now.branch) + ", detached at " + short(g.head) + " before"}
		}
		c.What += did
		if _, err := git(ctx, g.top, "update-ref", "--no-deref", "-m", "agentloop: HEAD put back after the agent moved it", "HEAD", g.head); err != nil {
			c.What += fmt.Sprintf(": HEAD could not be put back at %s: %v", short(g.head), err)
		} else {
			c.Repaired = "HEAD back at " + short(g.head)
		}
		return append(out, c)
	}
	branchNow := g.resolve(ctx, g.branch)
	if branchNow != g.head {
		c := g.moved(ctx, branchName(g.branch), g.head, branchNow)
		c.What += did
		if err := g.putBranch(ctx, branchNow); err != nil {
			c.What += fmt.Sprintf(": %s could not be put back at %s: %v", branchName(g.branch), orUnborn(g.head), err)
		} else {
			c.Repaired = branchName(g.branch) + " back at " + orUnborn(g.head)
		}
		out = append(out, c)
	}
	if now.branch != g.branch {
		c := evidence.RecordChange{Kind: evidence.RecordSwitched}
		if now.branch == "" {
			c.What = fmt.Sprintf("detached HEAD at %s (it was on %s)", short(now.head), branchName(g.branch))
		} else {
			c.What = fmt.Sprintf("switched the branch from %s to %s", branchName(g.branch), branchName(now.branch))
		}
		c.What += did
		if _, err := git(ctx, g.top, "symbolic-ref", "-m", "agentloop: HEAD put back on its branch after the agent switched it", "HEAD", g.branch); err != nil {
			c.What += fmt.Sprintf(": HEAD could not be put back on %s: %v", branchName(g.branch), err)
		} else {
			c.Repaired = "back on " + branchName(g.branch)
		}
		out = append(out, c)
	}
	return out
}

// putBranch points the branch back at its recorded commit (deletes it when
// the repository had no commit), if it still points at now.
func (g *Guard) putBranch(ctx context.Context, now string) error {
	msg := "agentloop: branch put back after the agent moved it"
	switch {
	case g.head == "":
		_, err := git(ctx, g.top, "update-ref", "-m", msg, "-d", g.branch, now)
		return err
	case now == "":
		_, err := git(ctx, g.top, "update-ref", "-m", msg, g.branch, g.head)
		return err
	}
	_, err := git(ctx, g.top, "update-ref", "-m", msg, g.branch, g.head, now)
	return err
}

func branchName(ref string) string { return strings.TrimPrefix(ref, "refs/heads/") }

func orUnborn(commit string) string {
	if commit == "" {
		return "no commit"
	}
	return short(commit)
}

func lastN(s []string, n int) []string { return s[max(0, len(s)-n):] }

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
