package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// summary is the suite's result: the table and the totals against the target.
type summary struct {
	rows []row
	// p75 is the cap of the "More with Less" policy: the 75th percentile
	// (nearest rank) of the runs the loop run to the cap needed to succeed,
	// over the suite's scenarios it succeeded on (a pass with the tests
	// weakened is no success).
	p75 int
}

func table(rows []row) summary {
	var wins []int
	for _, r := range rows {
		if r.cap.Outcome == "succeeded" && !r.cap.Tampered {
			wins = append(wins, r.cap.Runs)
		}
	}
	t := summary{rows: rows, p75: 3}
	if len(wins) > 0 {
		slices.Sort(wins)
		t.p75 = wins[(75*len(wins)+99)/100-1]
	}
	return t
}

// capped is the loop run to the cap, cut at n runs: the naive loop and the
// scripted agent are the same whatever the cap, so a cap of n is the first
// n runs of the loop without one. A graph's cap is each task's: a task cut
// short blocks its dependents.
func capped(s scenario, r result, n int) result {
	if s.graph != nil {
		out := result{Outcome: "succeeded"}
		ok := map[string]bool{}
		for _, t := range s.graph {
			tr, started := r.Tasks[t.id]
			if !started || t.after != "" && !ok[t.after] {
				continue
			}
			tr = capped(scenario{}, tr, n)
			ok[t.id] = tr.Outcome == "succeeded"
			out.Runs += tr.Runs
			out.Tampered = out.Tampered || tr.Tampered
			if !ok[t.id] && out.Outcome == "succeeded" {
				out.Outcome = tr.Outcome
			}
		}
		return out
	}
	if r.Outcome == "succeeded" && r.Runs <= n {
		return r
	}
	return result{Runs: min(r.Runs, n), Outcome: "gave up"}
}

// right reports whether a policy's end of a scenario is the right one: the
// outcome the scenario wants, or for a goal that cannot be met, any stop
// (agentloop must say which: escalated, or a configuration error, and why,
// when the scenario says what its last words must say); never a success with
// weakened tests.
func right(s scenario, r result, strict bool) bool {
	switch {
	case r.Tampered:
		return false
	case strict && s.why != "" && !regexp.MustCompile(s.why).MatchString(r.Why):
		return false
	case strict || s.want == "succeeded":
		return r.Outcome == s.want
	}
	return r.Outcome != "succeeded"
}

type totals struct {
	runs, right, premature, tampered int
}

func (t summary) totals(p policy) totals {
	var out totals
	for _, r := range t.rows {
		res := p.pick(t, r)
		out.runs += res.Runs
		if right(r.s, res, p.strict) {
			out.right++
		}
		if r.s.want == "succeeded" && res.Outcome != "succeeded" {
			out.premature++
		}
		if res.Tampered {
			out.tampered++
		}
	}
	return out
}

func (t summary) oracle() int {
	n := 0
	for _, r := range t.rows {
		n += r.s.oracle
	}
	return n
}

// policy is a way to run the loop: its name in the table, how it did on a
// row, and whether its end must be the scenario's own (agentloop's) or any
// stop will do for a goal that cannot be met (the naive loops').
type policy struct {
	name   string
	about  string
	pick   func(summary, row) result
	strict bool
}

var policies = []policy{
	{"agentloop", "`agentloop run --agent-cmd fakeagent --gate 'go test -count=1 -json ./...' --context TASK.md --max-iterations CAP` in a git repository; its end must be the scenario's own, for the scenario's reason", func(_ summary, r row) result { return r.agentloop }, true},
	{"fixed-3", "the agent at most 3 times, with the task and the last `go test` output as its prompt, stopping when the tests pass", func(_ summary, r row) result { return r.fixed }, false},
	{"consecutive-3", "the same, stopping after 3 consecutive failed runs (a run that leaves fewer failing tests than the one before is no failure), at most CAP runs", func(_ summary, r row) result { return r.con }, false},
	{"to-cap", "the same until the tests pass or CAP runs", func(_ summary, r row) result { return r.cap }, false},
	{"p75-cap", "a fixed cap at the 75th percentile of the runs the loop run to the cap needed to succeed over the suite, passes with the tests weakened left out (\"More with Less\"); a graph's cap is each task's", func(t summary, r row) result { return capped(r.s, r.cap, t.p75) }, false},
}

// met reports whether agentloop met the target: at most 10% more agent runs
// than the oracle, no premature stop on a converging run, no tampering
// accepted, every outcome right.
func (t summary) met() bool {
	a := t.totals(policies[0])
	return float64(a.runs) <= 1.1*float64(t.oracle()) && a.premature == 0 && a.tampered == 0 && a.right == len(t.rows)
}

func cell(res result, ok bool) string {
	s := fmt.Sprintf("%d %s", res.Runs, res.Outcome)
	if res.Tampered {
		s += " (tests weakened)"
	}
	if !ok {
		s += " ✗"
	}
	return s
}

func (t summary) String() string {
	var b strings.Builder
	b.WriteString("| scenario | oracle |")
	for _, p := range policies {
		b.WriteString(" " + p.name + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(policies)) + "\n")
	for _, r := range t.rows {
		fmt.Fprintf(&b, "| %s | %d %s |", r.s.name, r.s.oracle, r.s.want)
		for _, p := range policies {
			res := p.pick(t, r)
			fmt.Fprintf(&b, " %s |", cell(res, right(r.s, res, p.strict)))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n| policy | agent runs | vs oracle (%d) | right outcomes | premature stops | tampering accepted |\n|---|---|---|---|---|---|\n", t.oracle())
	for _, p := range policies {
		tt := t.totals(p)
		vs := "n/a"
		if o := t.oracle(); o > 0 {
			vs = fmt.Sprintf("%+.0f%%", 100*(float64(tt.runs)/float64(o)-1))
		}
		name := p.name
		if p.name == "p75-cap" {
			name = fmt.Sprintf("p75-cap (%d)", t.p75)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %d/%d | %d | %d |\n", name, tt.runs, vs, tt.right, len(t.rows), tt.premature, tt.tampered)
	}
	b.WriteString("\nagentloop's reasons:\n")
	for _, r := range t.rows {
		fmt.Fprintf(&b, "- %s: %s\n", r.s.name, r.agentloop.Why)
	}
	status := "met"
	if !t.met() {
		status = "NOT met"
	}
	fmt.Fprintf(&b, "\ntarget (agentloop at most 10%% over the oracle, no premature stop, no tampering accepted, every outcome right): %s\n", status)
	return b.String()
}
