package report

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// Attempt is what an attempt's folder keeps beyond its record in the state:
// the reviewer's verdict with its reasons, the decision's triggers with their
// evidence, and the agent's final answer, its own words.
type Attempt struct {
	Review   *evidence.Review   // review.json; nil when the reviewer did not run or it is not kept
	Triggers []decision.Trigger // decision.yaml's triggers
	Answer   string             // answer.md: the agent's claim, never a fact of agentloop's
}

// maxAttemptFile bounds what a report reads of one of an attempt's files.
const maxAttemptFile = 1 << 20

// loadAttempts reads the folders of the attempts a pull request's body
// tells of: the last one, the best one (which a person may have accepted),
// the last one the reviewer judged, and those whose decision found test
// tampering. A missing or unreadable file leaves its part out (the body then
// says the records do not hold it): a report is written from what there is.
func loadAttempts(dir string, st *state.State) map[int]Attempt {
	if st == nil || len(st.History) == 0 {
		return nil
	}
	h := st.History
	want := []int{seqOf(h[len(h)-1])}
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Review != "" {
			want = append(want, seqOf(h[i]))
			break
		}
	}
	if st.Best != nil && st.Best.Seq > 0 { // the attempt a person may have accepted
		want = append(want, st.Best.Seq)
	}
	for _, r := range h {
		if slices.Contains(r.Triggers, decision.TriggerTestTampering) {
			want = append(want, seqOf(r))
		}
	}
	out := map[int]Attempt{}
	for _, seq := range want {
		if _, ok := out[seq]; ok {
			continue
		}
		out[seq] = loadAttempt(state.IterDir(dir, seq))
	}
	return out
}

// loadAttempt reads one attempt's folder.
func loadAttempt(dir string) Attempt {
	var a Attempt
	if b := readSmall(filepath.Join(dir, state.ReviewFile)); b != nil {
		var rv evidence.Review
		if json.Unmarshal(b, &rv) == nil {
			a.Review = &rv
		}
	}
	if b := readSmall(filepath.Join(dir, state.DecisionFile)); b != nil {
		var doc decision.Document
		if yaml.Unmarshal(b, &doc) == nil {
			a.Triggers = doc.Decision.Triggers
		}
	}
	a.Answer = string(readSmall(filepath.Join(dir, state.AnswerFile)))
	return a
}

// readSmall reads at most maxAttemptFile bytes of a file; nil when it
// cannot.
func readSmall(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxAttemptFile))
	if err != nil {
		return nil
	}
	return b
}
