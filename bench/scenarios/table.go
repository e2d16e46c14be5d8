package main

import (
	"fmt"
	"strings"
)

// summary is the suite's result: the table and the totals against the target.
type summary struct {
	rows []row
}

func table(rows []row) summary { return summary{rows: rows} }

// right reports whether a policy's end of a scenario is the right one: the
// outcome the scenario wants, or for a goal that cannot be met, any stop
// (agentloop must say which: escalated, or a configuration error); never a
// success with weakened tests.
func right(s scenario, r result, strict bool) bool {
	switch {
	case r.tampered:
		return false
	case strict || s.want == "succeeded":
		return r.outcome == s.want
	}
	return r.outcome != "succeeded"
}

type totals struct {
	runs, right, premature, tampered int
}

func (t summary) totals(pick func(row) result, strict bool) totals {
	var out totals
	for _, r := range t.rows {
		res := pick(r)
		out.runs += res.runs
		if right(r.s, res, strict) {
			out.right++
		}
		if r.s.want == "succeeded" && res.outcome != "succeeded" {
			out.premature++
		}
		if res.tampered {
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

var policies = []struct {
	name   string
	pick   func(row) result
	strict bool
}{
	{"agentloop", func(r row) result { return r.agentloop }, true},
	{"fixed-3", func(r row) result { return r.fixed }, false},
	{"consecutive-3", func(r row) result { return r.con }, false},
}

// met reports whether agentloop met the target: at most 10% more agent runs
// than the oracle, no premature stop on a converging run, no tampering
// accepted, every outcome right.
func (t summary) met() bool {
	a := t.totals(policies[0].pick, true)
	return float64(a.runs) <= 1.1*float64(t.oracle()) && a.premature == 0 && a.tampered == 0 && a.right == len(t.rows)
}

func cell(res result, ok bool) string {
	s := fmt.Sprintf("%d %s", res.runs, res.outcome)
	if res.tampered {
		s += " (tests skipped)"
	}
	if !ok {
		s += " ✗"
	}
	return s
}

func (t summary) String() string {
	var b strings.Builder
	b.WriteString("| scenario | oracle | agentloop | fixed-3 | consecutive-3 |\n|---|---|---|---|---|\n")
	for _, r := range t.rows {
		fmt.Fprintf(&b, "| %s | %d %s | %s | %s | %s |\n", r.s.name, r.s.oracle, r.s.want,
			cell(r.agentloop, right(r.s, r.agentloop, true)), cell(r.fixed, right(r.s, r.fixed, false)), cell(r.con, right(r.s, r.con, false)))
	}
	fmt.Fprintf(&b, "\n| policy | agent runs | vs oracle (%d) | right outcomes | premature stops | tampering accepted |\n|---|---|---|---|---|---|\n", t.oracle())
	for _, p := range policies {
		tt := t.totals(p.pick, p.strict)
		vs := "n/a"
		if o := t.oracle(); o > 0 {
			vs = fmt.Sprintf("%+.0f%%", 100*(float64(tt.runs)/float64(o)-1))
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %d/%d | %d | %d |\n", p.name, tt.runs, vs, tt.right, len(t.rows), tt.premature, tt.tampered)
	}
	b.WriteString("\nagentloop's reasons:\n")
	for _, r := range t.rows {
		fmt.Fprintf(&b, "- %s: %s\n", r.s.name, r.detail)
	}
	status := "met"
	if !t.met() {
		status = "NOT met"
	}
	fmt.Fprintf(&b, "\ntarget (agentloop at most 10%% over the oracle, no premature stop, no tampering accepted, every outcome right): %s\n", status)
	return b.String()
}
