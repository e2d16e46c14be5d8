package agent

import (
	"bufio"
	"os"

	"github.com/agentloop/agentloop/internal/evidence"
)

// TranscriptUsage reads what a saved transcript of preset p's CLI (an
// attempt's agent.log) tells of its spend, priced as [Runner.Run] prices a
// run's usage: for an attempt its process did not see to the end (agentloop
// was killed during it), so that it counts what the same attempt cut by
// Ctrl-C counts. Tokens and cost stay unknown when the transcript tells none.
func (r *Runner) TranscriptUsage(p Preset, logPath string) evidence.Usage {
	f, err := os.Open(logPath)
	if err != nil {
		return evidence.Usage{}
	}
	defer f.Close()
	parser, err := NewParser(p.Format)
	if err != nil {
		return evidence.Usage{}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), r.size(r.MaxLine, DefaultMaxLine))
	for sc.Scan() {
		parser.Line(sc.Bytes())
	}
	return EstimateOutcome(parser.Result(), r.prices())
}
