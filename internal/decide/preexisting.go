package decide

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
)

// SetAside is the iteration as the decider judges it: without the failures
// outside the task, a required gate that failed only on them passing, and
// their keys. told is the task as the run was told it ([state.Spec.Told]),
// baseline the gates' results before the run (nil: no baseline ran). An
// engine asks it before the review, so that the reviewer is asked exactly
// when the decider will find the gates green.
func SetAside(told string, baseline []evidence.GateResult, ev evidence.Iteration) (evidence.Iteration, []string) {
	keys := outsideTask(told, baseline, ev)
	return setAside(ev, keys), keys
}

// outsideTask returns the keys of the iteration's failing tests that are not
// the run's. Told a task ([state.Spec.Told]) that names some of the tests
// failing before the run, a test that also failed before the run, that the
// task does not name, in a file the agent's changes since the run's start did
// not touch, and whose message did not change is outside it: reported under
// its own heading, it does not stop a success. Told no task, or one that
// names none of the failing tests ("make the tests pass"), every failure is
// the task (nil); a new failure, or a pre-existing one the agent made worse
// (its message changed) or whose file it touched, is the run's.
func outsideTask(told string, baseline []evidence.GateResult, ev evidence.Iteration) []string {
	task := strings.TrimSpace(told)
	if task == "" || len(baseline) == 0 {
		return nil
	}
	before := map[string]string{}
	specific := false
	for _, g := range baseline {
		for _, f := range slices.Concat(g.Findings, g.Preexisting) {
			before[gate.Key(f)] = strings.TrimSpace(f.Message)
			specific = specific || f.Kind == evidence.KindTest && names(task, f)
		}
	}
	if !specific {
		// A task that names none of the failing tests ("make the tests
		// pass") does not say which are outside it: all of them are its.
		return nil
	}
	changed := ev.Diff.Files
	if s := ev.Diff.SinceStart; s != nil {
		changed = s.Files
	}
	var out []string
	for _, g := range ev.Gates {
		if g.Infra || g.TimedOut > 0 {
			continue
		}
		for _, f := range g.Preexisting {
			k := gate.Key(f)
			msg, ok := before[k]
			if ok && f.Kind == evidence.KindTest && !f.Flaky && msg == strings.TrimSpace(f.Message) &&
				!names(task, f) && !touched(changed, f.File) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// names reports whether the task names the test: its name, with or without
// its package ("TestRemote", "calc.TestRemote"), or the file it is in.
func names(task string, f evidence.Finding) bool {
	id := f.ID
	short := id
	if i := strings.LastIndexAny(id, "./ "); i >= 0 && i+1 < len(id) {
		short = id[i+1:]
	}
	if top, _, ok := strings.Cut(short, "/"); ok { // a subtest: its test
		short = top
	}
	for _, w := range []string{id, short, path.Base(f.File)} {
		if w != "" && w != "." && regexp.MustCompile(`(^|[^\w.])`+regexp.QuoteMeta(w)+`\b`).MatchString(task) {
			return true
		}
	}
	return false
}

// touched reports whether a changed file is the finding's file (a finding
// names its file from its package's folder or from the root).
func touched(changed []string, file string) bool {
	if file == "" {
		return false
	}
	for _, c := range changed {
		if c == file || strings.HasSuffix(c, "/"+file) || strings.HasSuffix(file, "/"+c) {
			return true
		}
	}
	return false
}

// setAside is the iteration without the failures outside the task: a
// required gate that failed only on them passes.
func setAside(ev evidence.Iteration, keys []string) evidence.Iteration {
	if len(keys) == 0 {
		return ev
	}
	gates := make([]evidence.GateResult, len(ev.Gates))
	for i, g := range ev.Gates {
		n := len(g.Preexisting)
		g.Preexisting = slices.DeleteFunc(slices.Clone(g.Preexisting), func(f evidence.Finding) bool { return slices.Contains(keys, gate.Key(f)) })
		if len(g.Preexisting) < n && len(g.Findings) == 0 && len(g.Preexisting) == 0 {
			g.Passed = true
		}
		gates[i] = g
	}
	ev.Gates = gates
	return ev
}
