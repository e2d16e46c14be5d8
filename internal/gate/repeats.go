package gate

import "github.com/agentloop/agentloop/internal/evidence"

// Repeats are the failures a gate's flaky check saw fail twice, by key, with
// the message they failed with (normalized). A failure of the gate's next
// run with the same key and the same message has then failed the same way
// three times in a row: evidence enough that it is no flake, and it is not
// run again.
type Repeats map[string]string

// Add records fs as confirmed: each failed in both runs of a flaky check.
func (r Repeats) Add(fs ...evidence.Finding) {
	for _, f := range fs {
		r[Key(f)] = Normalize(f.Message)
	}
}

// Split sorts a run's failures into those that fail as r recorded them (same
// key, same message once normalized) and the rest, in order.
func (r Repeats) Split(fs []evidence.Finding) (repeats, rest []evidence.Finding) {
	for _, f := range fs {
		if msg, ok := r[Key(f)]; ok && msg == Normalize(f.Message) {
			repeats = append(repeats, f)
		} else {
			rest = append(rest, f)
		}
	}
	return repeats, rest
}

// FailedAgain returns the failures among fs that the second run of a flaky
// check failed too.
func FailedAgain(fs []evidence.Finding, second evidence.GateResult) []evidence.Finding {
	again := map[string]bool{}
	for _, g := range [][]evidence.Finding{second.Findings, second.Preexisting} {
		for _, f := range g {
			again[Key(f)] = true
		}
	}
	var out []evidence.Finding
	for _, f := range fs {
		if again[Key(f)] {
			out = append(out, f)
		}
	}
	return out
}

// RepeatNote says which failures were not run again for failing as the
// previous run's flaky check confirmed them.
func RepeatNote(repeats []evidence.Finding) string {
	return countNoun(len(repeats), "failure") + " failing as in the previous run, whose flaky check ran them again, not run again"
}
