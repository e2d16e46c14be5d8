package decide

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// A reviewer's blocker or major finding whose words name one of the four
// immediate triggers is that trigger, tag or no tag; a finding that denies
// it, mentions the word in passing or is only minor is not.
func TestConcernNamed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg, severity, id string
		want              bool
	}{
		{"SQL injection: user input is concatenated into the SQL string", "blocker", decision.TriggerSecurity, true},
		{"the handler logs the API key on every request", "major", decision.TriggerSecurity, true},
		{"path traversal: the file name from the request is joined unchecked", "blocker", decision.TriggerSecurity, true},
		{"this opens an XSS hole in the comment form", "major", decision.TriggerSecurity, true},
		{"no security impact, but the error message is unclear", "major", decision.TriggerSecurity, false},
		{"the change has no SQL injection risk; rename the variable", "major", decision.TriggerSecurity, false},
		{"not a security issue: the log line is only noisy", "blocker", decision.TriggerSecurity, false},
		{"update the security section of the README", "major", decision.TriggerSecurity, false},
		{"SQL injection: user input is concatenated into the SQL string", "minor", decision.TriggerSecurity, false},
		{"SQL injection: user input is concatenated into the SQL string", "nit", decision.TriggerSecurity, false},

		{"scope creep: the change rewrites the CLI parser the task did not mention", "major", decision.TriggerScopeCreep, true},
		{"the new caching layer is out of scope for this task", "blocker", decision.TriggerScopeCreep, true},
		{"unrelated refactor of the logger", "major", decision.TriggerScopeCreep, true},
		{"this is not a scope change; the helper was already there", "major", decision.TriggerScopeCreep, false},
		{"the scope of the variable is too wide", "major", decision.TriggerScopeCreep, false},

		{"architectural impact: the handler now talks to the database directly", "blocker", decision.TriggerArchitecture, true},
		{"this breaks the layering: the domain package imports the HTTP package", "major", decision.TriggerArchitecture, true},
		{"an import cycle between store and api", "major", decision.TriggerArchitecture, true},
		{"style: name this after the architecture docs' term, 'adapter'", "major", decision.TriggerArchitecture, false},
		{"the comment says 'architecture' where the docs say 'design'", "major", decision.TriggerArchitecture, false},
		{"no architectural change here, only a rename", "major", decision.TriggerArchitecture, false},

		{"conflicting requirements: TestRound wants 2.5 → 3, TestBanker wants 2.5 → 2", "blocker", decision.TriggerConflict, true},
		{"the two tests contradict each other on negative input", "major", decision.TriggerConflict, true},
		{"the code cannot satisfy both TestUp and TestDown as written", "major", decision.TriggerConflict, true},
		{"the requirements do not conflict: both tests can pass", "major", decision.TriggerConflict, false},
		{"there are no conflicting requirements, only a missed case", "major", decision.TriggerConflict, false},
	}
	for _, tt := range tests {
		t.Run(tt.id+"/"+tt.msg+"/"+tt.severity, func(t *testing.T) {
			t.Parallel()
			r := &evidence.Review{Verdict: evidence.VerdictRequestChanges, Findings: []evidence.ReviewFinding{{Severity: tt.severity, Message: tt.msg}}}
			if _, got := concernNamed(r, tt.id); got != tt.want {
				t.Errorf("concernNamed(%q, %s) = %v, want %v", tt.msg, tt.id, got, tt.want)
			}
		})
	}
}

// A blocker that names SQL injection without the security tag escalates at
// once as the tag does, its words quoted in the reason and the report: it
// no longer refines twice and escalates on review rounds.
func TestUntaggedFindingEscalatesAtOnce(t *testing.T) {
	t.Parallel()
	const sqli = "SQL injection: user input is concatenated into the SQL string"
	tests := []struct {
		name, msg, class string
		action           state.Action
	}{
		{"security", sqli, decision.TriggerSecurity, state.ActionEscalate},
		{"architecture", "architectural impact: the handler now queries the database directly", decision.TriggerArchitecture, state.ActionEscalate},
		{"conflicting requirements", "conflicting requirements: TestRound wants 2.5 → 3, TestBanker wants 2.5 → 2", decision.TriggerConflict, state.ActionEscalate},
		{"a style remark refines", "style: name this after the architecture docs' term", "", state.ActionRefine},
		{"a denial refines", "no security impact, but the query builder is hard to read", "", state.ActionRefine},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := reviewed()
			ev := with(iter(1), func(ev *evidence.Iteration) {
				ev.Review = &evidence.Review{Verdict: evidence.VerdictRequestChanges, Score: 4,
					Findings: []evidence.ReviewFinding{{Severity: "blocker", File: "store.go", Message: tt.msg}}}
			})
			d := New(DefaultPolicy()).Decide(state.DecideInput{State: &state.State{}, Spec: &spec, Evidence: ev})
			if d.Action != tt.action {
				t.Fatalf("action %s (%s), want %s", d.Action, d.Message, tt.action)
			}
			if tt.class == "" {
				return
			}
			if d.Escalation == nil || d.Escalation.Report == nil {
				t.Fatal("no escalation report")
			}
			if r := d.Escalation.Report; r.Class != tt.class || !strings.Contains(d.Message, tt.msg) || !strings.Contains(r.Question, tt.msg) {
				t.Errorf("class %q, message %q, question %q: want class %s quoting %q", r.Class, d.Message, r.Question, tt.class, tt.msg)
			}
		})
	}
}

// A free-text rejection (the decide document's reviewer) is read as a
// structured reviewer's findings are: its words name a concern, a denial or
// a word in passing does not.
func TestRejectionTags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		feedback string
		want     []string
	}{
		{"The new endpoint logs the session secret in plain text: a security problem.", []string{decision.TriggerSecurity}},
		{"SQL injection: user input is concatenated into the SQL string.", []string{decision.TriggerSecurity}},
		{"No security impact, but rename the handler.", nil},
		{"Follow the architecture docs' naming for the adapter.", nil},
		{"This is out of scope for the task. The tests contradict each other on rounding.", []string{decision.TriggerConflict, decision.TriggerScopeCreep}},
	} {
		if got := rejection(tt.feedback).Tags; !slices.Equal(got, tt.want) {
			t.Errorf("rejection(%q).Tags = %v, want %v", tt.feedback, got, tt.want)
		}
	}
}
