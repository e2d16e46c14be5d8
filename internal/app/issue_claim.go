package app

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/state"
)

// ErrIssueTaken says that another agentloop claimed the issue first: this
// one ran nothing.
var ErrIssueTaken = errors.New("another agentloop claimed the issue first")

// claimMark is the hidden line of a progress comment that says whose claim
// it is, read back by every agentloop that claims the issue.
type claimMark struct {
	Run string `json:"run"`
	ID  string `json:"id,omitempty"`
	// By names the agentloop (a hash of its user, host and state folder),
	// so that a restart finds its own comment.
	By string `json:"by"`
	// State is running, waiting, stopped, done or yielded; a done or
	// yielded claim is not live.
	State string `json:"state"`
}

const claimPrefix = "<!-- agentloop:claim "

func (m claimMark) line() string {
	b, _ := json.Marshal(m)
	return claimPrefix + string(b) + " -->"
}

func (m claimMark) live() bool { return m.State != "done" && m.State != "yielded" }

// claimOf is the claim a progress comment of agentloop's holds.
func claimOf(c forge.Comment) (claimMark, bool) {
	if !ours(c) || !strings.Contains(c.Body, forge.Marker("progress")) {
		return claimMark{}, false
	}
	_, rest, ok := strings.Cut(c.Body, claimPrefix)
	if !ok {
		return claimMark{}, false
	}
	js, _, ok := strings.Cut(rest, " -->")
	var m claimMark
	if !ok || json.Unmarshal([]byte(js), &m) != nil || m.Run == "" {
		return claimMark{}, false
	}
	return m, true
}

// claimant names this agentloop in its claims: its user, host and state
// folder, hashed (a comment is public; a path is not its business).
func (r *issueRun) claimant() string {
	host, _ := os.Hostname()
	sum := sha256.Sum256([]byte(r.pr.user() + "\x00" + host + "\x00" + r.store.Root))
	return hex.EncodeToString(sum[:6])
}

// claim puts the issue's progress comment up, or finds it again: the one of
// link (a run already under way), else this agentloop's own from a start a
// kill cut short, else a new one. A new run (link nil) that finds another
// agentloop's live claim writes nothing and runs nothing ([ErrIssueTaken]);
// else it first moves the labels, then after its comment is up reads the
// comments again: of a race, the oldest live claim wins, and this one
// yields, saying so on its comment and on screen, running nothing.
func (r *issueRun) claim(ctx context.Context, link *state.Issue) (won bool, err error) {
	r.shown.claim = claimMark{Run: r.name, By: r.claimant(), State: "running"}
	r.shown.state = "running"
	cs, err := r.comments(ctx)
	if err != nil {
		return false, err
	}
	if link != nil {
		r.shown.comment = link.Comment
		if st, err := r.states.load(ctx, r.name); err == nil {
			r.shown.fill(st, r.states)
		}
	} else {
		if other, ok := r.otherClaim(cs); ok {
			m, _ := claimOf(other)
			return false, fmt.Errorf("issue %s: %w (its run %s, %s); nothing was run or written here", r.ref, ErrIssueTaken, m.Run, other.URL)
		}
		if err := r.label(ctx, []string{r.labels.Running}, []string{r.labels.Queued}); err != nil {
			return false, err
		}
	}
	if r.shown.comment == 0 {
		for _, c := range cs {
			if m, ok := claimOf(c); ok && m.By == r.shown.claim.By && m.Run == r.name {
				r.shown.comment = c.ID
				break
			}
		}
	}
	if r.shown.comment != 0 {
		if err := r.edit(ctx); err != nil {
			return false, err
		}
	} else {
		c, err := r.f.Comment(ctx, r.ref, r.shown.body())
		if err != nil {
			return false, forgeFailure(err, r.ref.Host, "comment on issue "+r.ref.String(), "")
		}
		r.shown.comment = c.ID
		if cs, err = r.comments(ctx); err != nil {
			return false, err
		}
	}
	if link != nil {
		return true, nil // the issue's run is this one's already
	}
	winner, ok := oldestClaim(cs, r.shown.comment)
	if !ok || winner.ID == r.shown.comment {
		return true, nil
	}
	m, _ := claimOf(winner)
	r.shown.state, r.shown.claim.State = "yielded", "yielded"
	r.shown.note = fmt.Sprintf("Another agentloop (run %s) claimed this issue first; this one ran nothing.", m.Run)
	if err := r.edit(ctx); err != nil {
		fmt.Fprintf(r.out, "warning: %v\n", err)
	}
	return false, fmt.Errorf("issue %s: %w (its run %s, %s); nothing was run here", r.ref, ErrIssueTaken, m.Run, winner.URL)
}

// otherClaim is the oldest live claim of cs by another agentloop.
func (r *issueRun) otherClaim(cs []forge.Comment) (forge.Comment, bool) {
	var others []forge.Comment
	for _, c := range cs {
		if m, ok := claimOf(c); ok && m.By != r.shown.claim.By {
			others = append(others, c)
		}
	}
	return oldestClaim(others, 0)
}

// oldestClaim is the first live claim of cs by creation, with the comment
// own counted live whatever it says (it was just written).
func oldestClaim(cs []forge.Comment, own int64) (forge.Comment, bool) {
	var live []forge.Comment
	for _, c := range cs {
		if m, ok := claimOf(c); ok && (m.live() || c.ID == own) {
			live = append(live, c)
		}
	}
	if len(live) == 0 {
		return forge.Comment{}, false
	}
	return slices.MinFunc(live, func(a, b forge.Comment) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	}), true
}

func (r *issueRun) comments(ctx context.Context) ([]forge.Comment, error) {
	cs, err := r.f.Comments(ctx, r.ref)
	if err != nil {
		return nil, forgeFailure(err, r.ref.Host, "read the comments of issue "+r.ref.String(), "")
	}
	return cs, nil
}

// label moves the issue's labels.
func (r *issueRun) label(ctx context.Context, add, remove []string) error {
	if err := r.f.Label(ctx, r.ref, add, remove); err != nil {
		return forgeFailure(err, r.ref.Host, "label issue "+r.ref.String(), r.kept())
	}
	return nil
}

// kept says where the run's work and state are, for an error after the run
// has started.
func (r *issueRun) kept() string {
	if _, err := os.Stat(r.wt); err != nil {
		return ""
	}
	return fmt.Sprintf("; the run's work is kept on its branch %s (worktree %s) and its state saved: the same command goes on from there", r.branch, RelPath(r.repo, r.wt))
}
