package config

import (
	"strings"
	"testing"
	"time"
)

func TestIssues(t *testing.T) {
	t.Parallel()
	c, err := load(t, "", "", nil, Overrides{})
	if err != nil || c.Issues.RequireSandbox || c.Issues.Labels != DefaultIssueLabels {
		t.Errorf("no issues: section: %+v, %v; want the default labels, no sandbox required", c.Issues, err)
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
	} {
		if _, err := load(t, "", in, nil, Overrides{}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v; want an error naming %q", in, err, msg)
		}
	}
}
