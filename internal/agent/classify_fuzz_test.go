package agent

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/evidence"
)

// FuzzClassify feeds arbitrary output, stderr and exit codes to every preset's
// parser and classifier: no panic, a known outcome with a one-line reason, a fix
// for every outcome that stops the run, and no success for a failed exit.
func FuzzClassify(f *testing.F) {
	f.Add("claude", []byte(`{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Please run /login"}`), []byte(""), 1)
	f.Add("codex", []byte(`{"type":"turn.started"}`), []byte("ERROR: unexpected status 401 Unauthorized: Incorrect API key provided"), 1)
	f.Add("codex", []byte(""), []byte("ERROR: exceeded retry limit, last status: 429 Too Many Requests"), 1)
	f.Add("gemini", []byte(""), []byte(`{"error":{"type":"Error","message":"untrusted","code":55}}`), 55)
	f.Add("opencode", []byte(`{"type":"error","error":{"name":"APIError","data":{"message":"Unauthorized","statusCode":401,"isRetryable":false}}}`), []byte(""), 1)
	f.Add("claude", []byte(""), []byte("--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"), 1)
	f.Add("custom", []byte("done"), []byte("sh: 1: foo: not found"), 127)
	f.Fuzz(func(t *testing.T, preset string, stdout, stderr []byte, exit int) {
		p, err := Lookup(preset)
		if err != nil || p.Name == "custom" {
			p = mustLookupF(t, "custom").Merge(Override{Binary: "x"})
		}
		parser, err := NewParser(p.Format)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.SplitSeq(stdout, []byte("\n")) {
			parser.Line(line)
		}
		if sp, ok := parser.(StderrParser); ok {
			for line := range bytes.SplitSeq(stderr, []byte("\n")) {
				sp.StderrLine(line)
			}
		}
		out := parser.Result()
		c := Classify(p, exit, out, stderr, int64(len(stdout)+len(stderr)))
		switch c.Outcome {
		case evidence.OutcomeSucceeded, evidence.OutcomeFailed, evidence.OutcomeRefused, evidence.OutcomeAuth,
			evidence.OutcomeRateLimited, evidence.OutcomeTransient, evidence.OutcomeCrashed, evidence.OutcomeKilled,
			evidence.OutcomeNotInstalled:
		default:
			t.Errorf("unexpected outcome %q", c.Outcome)
		}
		if strings.Contains(c.Reason, "\n") || len(c.Reason) > 400 {
			t.Errorf("reason is not one line: %q", c.Reason)
		}
		if c.Outcome.Fatal() && c.Fix == "" {
			t.Errorf("%s without a fix: %+v", c.Outcome, c)
		}
		if c.Outcome == evidence.OutcomeSucceeded && (exit != 0 || out.IsError) {
			t.Errorf("exit %d, is_error %v judged a success", exit, out.IsError)
		}
	})
}

func mustLookupF(t *testing.T, name string) Preset {
	t.Helper()
	p, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
