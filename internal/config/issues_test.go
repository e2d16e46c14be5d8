package config

import (
	"strings"
	"testing"
	"time"
)

func TestIssues(t *testing.T) {
	t.Parallel()
	c, err := load(t, "", "", nil, Overrides{})
	if err != nil || c.Issues.RequireSandbox || c.Issues.Labels != DefaultIssueLabels || c.Issues.Caps != DefaultIssueCaps {
		t.Errorf("no issues: section: %+v, %v; want the default labels and caps, no sandbox required", c.Issues, err)
	}
	c, err = load(t, "", "issues: {caps: {check: 5, conflict: 0}}\n", nil, Overrides{})
	if want := (IssueCaps{Check: 5, Review: 3, Conflict: 0}); err != nil || c.Issues.Caps != want {
		t.Errorf("issues: {caps: …}: %+v, %v; want %+v", c.Issues.Caps, err, want)
	}
	c, err = load(t, "issues: {labels: {running: bot:busy}}\n", "issues: {require_sandbox: true, progress_every: 2m}\n", nil, Overrides{})
	want := DefaultIssueLabels
	want.Running = "bot:busy"
	if err != nil || !c.Issues.RequireSandbox || c.Issues.Labels != want || c.Issues.ProgressEvery != 2*time.Minute {
		t.Errorf("issues: from two tiers: %+v, %v; want the sandbox required and the running label renamed", c.Issues, err)
	}
	for in, msg := range map[string]string{
		"issues: {require_sandbox: maybe}\n": "issues.require_sandbox",
		"issues: {labels: {done: \"\"}}\n":   "issues.labels.done: a label needs a name",
		"issues: {label: {done: x}}\n":       "issues",
		"issues: {progress_every: soon}\n":   "issues.progress_every",
		"issues: {caps: {check: -1}}\n":      "issues.caps.check",
		"issues: {caps: {tests: 2}}\n":       "issues.caps",
	} {
		if _, err := load(t, "", in, nil, Overrides{}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v; want an error naming %q", in, err, msg)
		}
	}
}
