package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/forge/github"
	"github.com/agentloop/agentloop/internal/state"
)

// progress is what the issue's progress comment says.
type progress struct {
	comment   int64
	claim     claimMark
	state     string
	iteration int
	max       int
	phase     string
	spend     string
	decision  string
	decisions int // the run's decisions so far: a new one edits at once
	pr        string
	note      string
	ignored   int
}

// fill takes the run's position from its state, and while it runs its
// iteration and phase as its engine knows them (a local run's live file, the
// last heartbeat of a fleet's step).
func (p *progress) fill(st *state.State, states issueStates) {
	p.claim.ID = st.RunID
	p.iteration, p.max, p.decision, p.decisions = st.Iteration, st.MaxIterations, st.LastDecision, st.TotalIterations
	p.spend = spendString(st.Spend)
	p.phase = ""
	switch st.Status {
	case state.StatusRunning:
		p.state, p.claim.State = "running", "running"
		if it, phase, ok := states.live(st.Name); ok {
			p.iteration, p.phase = it, phase
		}
	case state.StatusEscalated:
		p.state, p.claim.State = "waiting for an answer", "waiting"
	case state.StatusSucceeded, state.StatusCompleted:
		p.state = string(st.Status)
	default:
		p.state, p.claim.State = string(st.Status), "stopped"
	}
}

// body is the comment's text: its marker and claim, hidden, then the run's
// position for a person.
func (p progress) body() string {
	var b strings.Builder
	b.WriteString(forge.Marker("progress") + "\n" + p.claim.line() + "\n")
	fmt.Fprintf(&b, "**agentloop** · run `%s`", p.claim.Run)
	if p.claim.ID != "" {
		fmt.Fprintf(&b, " (`%s`)", p.claim.ID)
	}
	fmt.Fprintf(&b, " · %s\n\n", p.state)
	if p.iteration > 0 {
		it := fmt.Sprintf("%d", p.iteration)
		if p.max > 0 {
			it += fmt.Sprintf(" of %d", p.max)
		}
		if p.phase != "" {
			it += " (" + p.phase + ")"
		}
		b.WriteString("- Iteration: " + it + "\n")
	}
	if p.spend != "" {
		b.WriteString("- Spent: " + p.spend + "\n")
	}
	if p.decision != "" {
		b.WriteString("- Last decision: " + p.decision + "\n")
	}
	if p.pr != "" {
		b.WriteString("- Pull request: " + p.pr + "\n")
	}
	if p.note != "" {
		b.WriteString("- " + p.note + "\n")
	}
	if p.ignored > 0 {
		were := "were"
		if p.ignored == 1 {
			were = "was"
		}
		fmt.Fprintf(&b, "- %d `/agentloop` %s by people who cannot write to this repository %s ignored.\n", p.ignored, pluralize(p.ignored, "command"), were)
	}
	b.WriteString("\n_Written by agentloop from its own records, not by the agent._\n")
	return b.String()
}

// edit puts the progress comment up to date.
func (r *issueRun) edit(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shown.comment == 0 {
		return nil
	}
	c, err := r.f.EditComment(ctx, r.ref.Repo, r.shown.comment, r.shown.body())
	if err != nil {
		return forgeFailure(err, r.ref.Host, "update the progress comment on issue "+r.ref.String(), r.kept())
	}
	r.wrote = c.UpdatedAt
	return nil
}

// follow keeps the progress comment up to date while the run goes on, from
// its state and live files: at once on each decision, else at most once per
// ProgressEvery (the option's, the configuration's, else
// [DefaultProgressEvery]); stop ends it. A failed edit is a warning, once: the run
// goes on.
func (r *issueRun) follow(ctx context.Context) (stop func()) {
	every := cmp.Or(r.o.ProgressEvery, r.o.Plan.Issues.ProgressEvery, DefaultProgressEvery)
	poll := cmp.Or(r.o.Poll, time.Second)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(poll)
		defer t.Stop()
		last, warned := r.pr.Now(), false
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			st, err := r.states.load(ctx, r.name)
			if err != nil {
				continue
			}
			r.mu.Lock()
			next := r.shown
			r.mu.Unlock()
			next.fill(st, r.states)
			now := r.pr.Now()
			decided := next.decisions != r.shown.decisions || next.claim.ID != r.shown.claim.ID
			if !decided && (next.body() == r.shown.body() || now.Sub(last) < every) {
				continue
			}
			r.mu.Lock()
			r.shown = next
			r.mu.Unlock()
			last = now
			if err := r.edit(ctx); err != nil && !warned {
				warned = true
				fmt.Fprintf(r.out, "warning: %v (the run goes on)\n", err)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// forgeFailure names what failed on the forge and what to do about it; kept
// says where the run's work is, when a run has started.
func forgeFailure(err error, host, doing, kept string) error {
	var todo string
	switch {
	case errors.Is(err, github.ErrApp) || errors.Is(err, github.ErrAppKey):
		// The message says what to fix; the token gh finds is not used.
		return &UsageError{Err: fmt.Errorf("%s on %s: %w; the GitHub App is set by %s%s", doing, host, err, appSettings, kept)}
	case errors.Is(err, forge.ErrAuth):
		todo = github.TokenHelp(host)
	case errors.Is(err, forge.ErrScope):
		todo = "give the token write access to the repository's issues, pull requests and contents (a classic token: the repo scope), or use another token"
	case errors.Is(err, forge.ErrRateLimited):
		todo = "the rate limit lasted longer than agentloop waits: run the same command again once it resets"
	case errors.Is(err, forge.ErrUnreachable):
		todo = "check the network and the host (GH_HOST); then run the same command again"
	case errors.Is(err, forge.ErrNotFound):
		todo = "check the issue's reference, and that the token can see the repository"
	default:
		return fmt.Errorf("%s on %s: %w%s", doing, host, err, kept)
	}
	err = fmt.Errorf("%s on %s: %w; %s%s", doing, host, err, todo, kept)
	if errors.Is(err, forge.ErrAuth) || errors.Is(err, forge.ErrScope) {
		return &UsageError{Err: err} // credentials to fix before running again
	}
	return err
}
