package notify

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/redact"
	"github.com/agentloop/agentloop/internal/state"
)

// Version is the version of the notification's JSON encoding (its "v"),
// documented in docs/notifications.md. A change that removes or renames a key,
// or changes its meaning or type, raises it.
const Version = 1

// Notification is one message to a person: the JSON body of the generic
// webhook and of the command's standard input, and what the other receivers
// render as text.
type Notification struct {
	Version int         `json:"v"`
	ID      string      `json:"id"` // the same for every receiver and attempt
	Type    target.Kind `json:"type"`
	Time    time.Time   `json:"time"`
	Title   string      `json:"title"` // one line
	Text    string      `json:"text"`  // a few lines for people
	Run     *Run        `json:"run,omitempty"`
	Graph   *Graph      `json:"graph,omitempty"`
	// Status is how a run or a graph ended (finished, graph_finished):
	// succeeded, completed, aborted or failed.
	Status string `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
	// NeedsYou is the record of what a waiting run asks (needs_you).
	NeedsYou *decision.NeedsYou `json:"needs_you,omitempty"`
	// Budget are the limits past 80% (budget_warning): tokens, cost, duration.
	Budget []string `json:"budget,omitempty"`
	// WaitMS is how long the rate limit is waited out (rate_limited).
	WaitMS int64 `json:"wait_ms,omitempty"`
}

// Run is the run a notification is about.
type Run struct {
	Name      string `json:"name"`
	ID        string `json:"id,omitempty"`
	Procedure string `json:"procedure,omitempty"`
	Graph     string `json:"graph,omitempty"` // the task graph of a task's run
	Task      string `json:"task,omitempty"`
	Repo      string `json:"repo,omitempty"` // the repository's folder
	Host      string `json:"host,omitempty"`
	Engine    string `json:"engine"` // local or temporal
	Iteration int    `json:"iteration,omitempty"`
}

// Graph is the task graph a graph_finished notification is about.
type Graph struct {
	Name  string         `json:"name"`
	Repo  string         `json:"repo,omitempty"`
	Tasks map[string]int `json:"tasks"` // how many tasks ended in each state
	// Waiting are the tasks that wait for a person (escalated, a merge conflict).
	Waiting []string `json:"waiting,omitempty"`
}

// Rules are the choices [Of] makes that a configuration sets.
type Rules struct {
	// RateLimitAfter is the shortest rate-limit wait that is told.
	RateLimitAfter time.Duration
}

// Of is the notification an event of run calls for, if any. A finished run
// that waits for a person (escalated) calls for none: its needs_you does. The
// notification's ID is derived from the run and the event, so that the same
// event gives the same ID wherever it is told.
func Of(run Run, ev state.Event, r Rules) (Notification, bool) {
	run.Iteration = ev.Iteration
	n := Notification{Version: Version, Time: ev.Time, Run: &run}
	switch d := ev.Data.(type) {
	case state.NeedsYou:
		rec := d.NeedsYou
		n.Type, n.NeedsYou = target.KindNeedsYou, &rec
		n.Title = fmt.Sprintf("%s needs you: %s", who(run), needsWhat(rec.Kind))
		n.Text = needsText(rec)
	case state.RunFinished:
		switch d.Status {
		case state.StatusSucceeded, state.StatusCompleted, state.StatusAborted:
		default:
			return Notification{}, false // escalated: needs_you tells it; interrupted: the person did it
		}
		n.Type, n.Status, n.Reason = target.KindFinished, string(d.Status), d.Reason
		n.Title = fmt.Sprintf("%s %s", who(run), d.Status)
		n.Text = fmt.Sprintf("%s after %d %s, %s.", capital(cmp.Or(d.Reason, "ended")), d.Iterations, plural(d.Iterations, "iteration"), d.Wall.Duration().Round(time.Second))
	case state.Warning:
		switch {
		case len(d.Budget) > 0:
			n.Type = target.KindBudget
			for _, b := range d.Budget {
				n.Budget = append(n.Budget, string(b))
			}
			n.Title = fmt.Sprintf("%s is past 80%% of its budget", who(run))
			n.Text = d.Message
		case d.RateLimitWait > 0 && d.RateLimitWait.Duration() >= r.RateLimitAfter:
			n.Type, n.WaitMS = target.KindRateLimited, int64(d.RateLimitWait)
			n.Title = fmt.Sprintf("%s waits %s for a rate limit", who(run), d.RateLimitWait.Duration().Round(time.Second))
			n.Text = d.Message
		default:
			return Notification{}, false
		}
	default:
		return Notification{}, false
	}
	n.ID = eventID(run.Name, run.ID, string(n.Type), ev.Time)
	return n, true
}

// Failed is a finished notification n turned into the failure of agentloop
// itself, err, rather than the loop's decision to stop.
func Failed(n Notification, err error) Notification {
	n.Status = "failed"
	if n.Run != nil {
		n.Title = who(*n.Run) + " failed"
	}
	if n.Text == "" {
		n.Text = err.Error()
	} else {
		n.Text += "\n" + err.Error()
	}
	return n
}

// GraphDone is the notification of task graph g ending: ended is when, status
// how (succeeded when every task is done, failed when one failed or was
// blocked, else the state most tasks are in).
func GraphDone(g Graph, status string, ended time.Time) Notification {
	n := Notification{Version: Version, Type: target.KindGraphFinished, Time: ended, Graph: &g, Status: status}
	n.Title = fmt.Sprintf("task graph %s %s", g.Name, status)
	var parts []string
	for _, s := range sortedKeys(g.Tasks) {
		parts = append(parts, fmt.Sprintf("%d %s", g.Tasks[s], s))
	}
	n.Text = "Tasks: " + strings.Join(parts, ", ") + "."
	if len(g.Waiting) > 0 {
		n.Text += "\nWaiting for you: " + strings.Join(g.Waiting, ", ") + " (agentloop inbox)."
	}
	n.ID = eventID(g.Name, "", string(n.Type), ended)
	return n
}

// Redacted is n with every secret redact finds in its text replaced.
func (n Notification) Redacted(r *redact.Redactor) Notification {
	s := r.String
	n.Title, n.Text, n.Reason = s(n.Title), s(n.Text), s(n.Reason)
	if n.Run != nil {
		run := *n.Run
		run.Repo = s(run.Repo)
		n.Run = &run
	}
	if n.NeedsYou != nil {
		rec := *n.NeedsYou
		rec.Question, rec.Evidence, rec.Report = s(rec.Question), s(rec.Evidence), s(rec.Report)
		rec.Options = append([]decision.Answer(nil), rec.Options...)
		for i, o := range rec.Options {
			rec.Options[i] = decision.Answer{Label: s(o.Label), TradeOff: s(o.TradeOff), Command: s(o.Command)}
		}
		n.NeedsYou = &rec
	}
	return n
}

func eventID(name, runID, kind string, t time.Time) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%d", name, runID, kind, t.UnixNano()))
	return hex.EncodeToString(h[:12])
}

// who names the run for a title: the graph's task, or the run.
func who(r Run) string {
	if r.Task != "" && r.Graph != "" {
		return fmt.Sprintf("task %s of %s", r.Task, r.Graph)
	}
	return "run " + r.Name
}

func needsWhat(kind string) string {
	switch kind {
	case decision.NeedsBudget:
		return "a budget stopped it"
	case decision.NeedsMerge:
		return "its work could not be merged"
	case decision.NeedsSetup:
		return "its agent cannot work"
	}
	return "it escalated"
}

// needsText is the record for people: the question, the evidence, and each
// option with its command.
func needsText(rec decision.NeedsYou) string {
	var b strings.Builder
	b.WriteString(rec.Question)
	if rec.Evidence != "" {
		b.WriteString("\n" + rec.Evidence)
	}
	for i, o := range rec.Options {
		fmt.Fprintf(&b, "\n%d) %s", i+1, o.Label)
		if o.Command != "" {
			b.WriteString(": " + o.Command)
		}
	}
	if rec.Report != "" {
		b.WriteString("\nReport: " + rec.Report)
	}
	return b.String()
}

func plural(n int, w string) string {
	if n == 1 {
		return w
	}
	return w + "s"
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
