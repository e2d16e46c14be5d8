package prompt

import "strconv"

// Data is what a prompt template can use: {{.Iteration}}, {{.Feedback}}, …
type Data struct {
	Procedure     string
	Iteration     int // 1-based
	MaxIterations int // 0: unlimited
	Attempt       int // which fresh attempt (1 for the first)
	Feedback      string
	Guidance      string
	Steer         string // guidance given to the running loop (agentloop guide)
	Strategy      string // retry, refine, expand, simplify; empty for the first iteration
	Focus         string // one failure to focus on (simplify)
	Lessons       []string
	Expand        []string // files and symbols to look at first (expand)
	LogDir        string
	Task          string
	Gates         []string // the gate commands agentloop will run
	WorkDir       string
}

// IterationLine is "Iteration i of N", or "Iteration i" when unlimited, with
// the attempt when it is not the first.
func (d Data) IterationLine() string {
	s := "Iteration " + strconv.Itoa(d.Iteration)
	if d.MaxIterations > 0 {
		s += " of " + strconv.Itoa(d.MaxIterations)
	}
	if d.Attempt > 1 {
		s += " (attempt " + strconv.Itoa(d.Attempt) + ")"
	}
	return s
}
