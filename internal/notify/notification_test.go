package notify

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/redact"
	"github.com/agentloop/agentloop/internal/state"
)

var at = time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)

// TestOf pins which events call for a notification, of which type, saying what.
func TestOf(t *testing.T) {
	t.Parallel()
	run := Run{Name: "build", ID: "r1", Procedure: "build", Engine: "local"}
	rec := decision.NeedsYou{Kind: decision.NeedsEscalated, Run: "build", Question: "Which test is right?", Evidence: "stuck",
		Options: []decision.Answer{{Label: "Guide it", Command: `agentloop resume build --guidance "..."`}}, Report: ".agentloop/runs/build/r1/escalation.md"}
	rules := Rules{RateLimitAfter: 10 * time.Minute}
	tests := []struct {
		name      string
		ev        state.Event
		want      target.Kind
		title     string
		text      string
		status    string
		budget    []string
		waitMS    int64
		needsKind string
	}{
		{name: "needs you", ev: state.Event{Iteration: 3, Data: state.NeedsYou{NeedsYou: rec}}, want: target.KindNeedsYou,
			title: "run build needs you: it escalated", needsKind: decision.NeedsEscalated,
			text: "Which test is right?\nstuck\n1) Guide it: agentloop resume build --guidance \"...\"\nReport: .agentloop/runs/build/r1/escalation.md"},
		{name: "succeeded", ev: state.Event{Iteration: 2, Data: state.RunFinished{Status: state.StatusSucceeded, Reason: "all required gates passed", Iterations: 2, Wall: 61_400}},
			want: target.KindFinished, status: "succeeded", title: "run build succeeded", text: "All required gates passed after 2 iterations, 1m1s."},
		{name: "aborted", ev: state.Event{Data: state.RunFinished{Status: state.StatusAborted, Reason: "consecutive failures: 3/3", Iterations: 3}},
			want: target.KindFinished, status: "aborted", title: "run build aborted", text: "Consecutive failures: 3/3 after 3 iterations, 0s."},
		{name: "completed", ev: state.Event{Data: state.RunFinished{Status: state.StatusCompleted, Iterations: 1}},
			want: target.KindFinished, status: "completed", title: "run build completed", text: "Ended after 1 iteration, 0s."},
		{name: "escalated end: its needs_you tells it", ev: state.Event{Data: state.RunFinished{Status: state.StatusEscalated}}},
		{name: "interrupted: the person did it", ev: state.Event{Data: state.RunFinished{Status: state.StatusInterrupted}}},
		{name: "budget at 80%", ev: state.Event{Data: state.Warning{Message: "budget: cost at 85%", Budget: []budget.Resource{budget.CostUSD, budget.Tokens}}},
			want: target.KindBudget, title: "run build is past 80% of its budget", text: "budget: cost at 85%", budget: []string{"cost", "tokens"}},
		{name: "long rate limit", ev: state.Event{Data: state.Warning{Message: "claude is rate limited", RateLimitWait: state.MillisOf(15 * time.Minute)}},
			want: target.KindRateLimited, title: "run build waits 15m0s for a rate limit", text: "claude is rate limited", waitMS: 900_000},
		{name: "rate limit at the threshold", ev: state.Event{Data: state.Warning{Message: "rl", RateLimitWait: state.MillisOf(10 * time.Minute)}},
			want: target.KindRateLimited, title: "run build waits 10m0s for a rate limit", text: "rl", waitMS: 600_000},
		{name: "short rate limit", ev: state.Event{Data: state.Warning{Message: "rl", RateLimitWait: state.MillisOf(10*time.Minute - time.Millisecond)}}},
		{name: "other warning", ev: state.Event{Data: state.Warning{Message: "gate output unreadable"}}},
		{name: "iteration", ev: state.Event{Data: state.IterationFinished{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.ev.Time = at
			n, ok := Of(run, tt.ev, rules)
			if ok != (tt.want != "") {
				t.Fatalf("Of() told = %v, want %v (%+v)", ok, tt.want != "", n)
			}
			if !ok {
				return
			}
			got := struct {
				Type                target.Kind
				Title, Text, Status string
				Budget              []string
				WaitMS              int64
			}{n.Type, n.Title, n.Text, n.Status, n.Budget, n.WaitMS}
			want := got
			want.Type, want.Title, want.Text, want.Status, want.Budget, want.WaitMS = tt.want, tt.title, tt.text, tt.status, tt.budget, tt.waitMS
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Of() mismatch (-want +got):\n%s", diff)
			}
			if n.Version != Version || n.Run == nil || n.Run.Name != "build" || n.Run.Iteration != tt.ev.Iteration || !n.Time.Equal(at) || len(n.ID) != 24 {
				t.Errorf("Of() envelope = v%d id %q time %v run %+v", n.Version, n.ID, n.Time, n.Run)
			}
			if (n.NeedsYou != nil) != (tt.needsKind != "") || n.NeedsYou != nil && n.NeedsYou.Kind != tt.needsKind {
				t.Errorf("needs_you = %+v, want kind %q", n.NeedsYou, tt.needsKind)
			}
		})
	}
}

// The ID is the event's: the same event told twice (by two processes) has one
// ID, another event another.
func TestOfID(t *testing.T) {
	t.Parallel()
	run := Run{Name: "build", ID: "r1"}
	ev := state.Event{Time: at, Data: state.RunFinished{Status: state.StatusSucceeded}}
	a, _ := Of(run, ev, Rules{})
	b, _ := Of(run, ev, Rules{})
	ev.Time = at.Add(time.Nanosecond)
	c, _ := Of(run, ev, Rules{})
	d, _ := Of(Run{Name: "build", ID: "r2"}, state.Event{Time: at, Data: state.RunFinished{Status: state.StatusSucceeded}}, Rules{})
	if a.ID != b.ID || a.ID == c.ID || a.ID == d.ID {
		t.Errorf("IDs %s %s %s %s: want the first two equal, the others different", a.ID, b.ID, c.ID, d.ID)
	}
}

func TestTaskAndGraph(t *testing.T) {
	t.Parallel()
	n, _ := Of(Run{Name: "plan-api", Graph: "plan", Task: "api"}, state.Event{Time: at, Data: state.RunFinished{Status: state.StatusSucceeded}}, Rules{})
	if n.Title != "task api of plan succeeded" {
		t.Errorf("title %q", n.Title)
	}
	g := GraphDone(Graph{Name: "plan", Tasks: map[string]int{"succeeded": 2, "escalated": 1}, Waiting: []string{"docs"}}, "escalated", at)
	if g.Type != target.KindGraphFinished || g.Title != "task graph plan escalated" ||
		g.Text != "Tasks: 1 escalated, 2 succeeded.\nWaiting for you: docs (agentloop inbox)." || g.ID == "" {
		t.Errorf("GraphDone() = %+v", g)
	}
	f := Failed(n, errors.New("the state cannot be saved"))
	if f.Status != "failed" || f.Title != "task api of plan failed" || !strings.HasSuffix(f.Text, "\nthe state cannot be saved") {
		t.Errorf("Failed() = %+v", f)
	}
}

func TestRedacted(t *testing.T) {
	t.Parallel()
	r := redact.New([]string{"DEPLOY_TOKEN=s3cr3t-value-123"})
	key := "sk-ant-api03-" + strings.Repeat("Zq8vN2xLr5Tb9WkMd3Hf", 5)[:93] + "AA" // the shape of a real Anthropic key
	n := Notification{Title: "t s3cr3t-value-123", Text: "key " + key, Reason: "s3cr3t-value-123",
		Run:      &Run{Repo: "/home/s3cr3t-value-123"},
		NeedsYou: &decision.NeedsYou{Question: "s3cr3t-value-123?", Options: []decision.Answer{{Label: "x", Command: "echo s3cr3t-value-123"}}}}
	got := n.Redacted(r)
	for _, s := range []string{got.Title, got.Text, got.Reason, got.Run.Repo, got.NeedsYou.Question, got.NeedsYou.Options[0].Command} {
		if strings.Contains(s, "s3cr3t") || strings.Contains(s, "sk-ant") || !strings.Contains(s, "[REDACTED") {
			t.Errorf("not redacted: %q", s)
		}
	}
	if !strings.Contains(n.NeedsYou.Options[0].Command, "s3cr3t") {
		t.Error("Redacted changed the notification it was given")
	}
}
