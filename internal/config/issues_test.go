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

// TestIssuesApp: issues: {app: ...} names a GitHub App by id, installation
// and key file (relative to its configuration file); AGENTLOOP_GITHUB_APP_*
// override it; a key given as text is refused without being echoed.
func TestIssuesApp(t *testing.T) {
	t.Parallel()
	c, err := load(t, "", "issues: {app: {id: 12345, installation_id: 7, private_key_file: keys/app.pem}}\n", nil, Overrides{})
	if want := (GitHubApp{ID: "12345", InstallationID: 7, PrivateKeyFile: "keys/app.pem"}); err != nil || c.Issues.App != want || !c.Issues.App.Set() {
		t.Errorf("issues: {app: …} = %+v, %v; want %+v (the workspace's file: relative to the work directory)", c.Issues.App, err, want)
	}
	c, err = load(t, "issues: {app: {id: 12345, private_key_file: keys/app.pem}}\n", "", nil, Overrides{})
	if want := (GitHubApp{ID: "12345", PrivateKeyFile: "/g/keys/app.pem"}); err != nil || c.Issues.App != want {
		t.Errorf("the global file's issues: {app: …} = %+v, %v; want %+v (relative to its file)", c.Issues.App, err, want)
	}
	c, err = load(t, "", "issues: {app: {id: 12345, private_key_file: /k.pem}}\n",
		env("AGENTLOOP_GITHUB_APP_ID", "Iv23liX", "AGENTLOOP_GITHUB_APP_INSTALLATION_ID", "9", "AGENTLOOP_GITHUB_APP_KEY_FILE", "/run/secrets/app.pem"), Overrides{})
	if want := (GitHubApp{ID: "Iv23liX", InstallationID: 9, PrivateKeyFile: "/run/secrets/app.pem"}); err != nil || c.Issues.App != want {
		t.Errorf("AGENTLOOP_GITHUB_APP_* = %+v, %v; want %+v", c.Issues.App, err, want)
	}
	if c, err := load(t, "", "", nil, Overrides{}); err != nil || c.Issues.App.Set() {
		t.Errorf("no app: %+v, %v; want none", c.Issues.App, err)
	}
	const key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAsecretsecretsecret\n-----END RSA PRIVATE KEY-----\n"
	for in, msg := range map[string]string{
		"issues:\n  app:\n    private_key_file: |\n      " + strings.ReplaceAll(key, "\n", "\n      ") + "\n": "issues.app.private_key_file: expected the path of the App's private key file",
		"issues: {app: {private_key: x}}\n":     "issues.app",
		"issues: {app: {installation_id: x}}\n": "issues.app.installation_id",
	} {
		_, err := load(t, "", in, nil, Overrides{})
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v; want an error naming %q", in, err, msg)
		}
		if err != nil && strings.Contains(err.Error(), "MIIE") {
			t.Errorf("the error echoes the key: %v", err)
		}
	}
	if _, err := load(t, "", "", env("AGENTLOOP_GITHUB_APP_KEY_FILE", key), Overrides{}); err == nil || strings.Contains(err.Error(), "MIIE") {
		t.Errorf("a key in AGENTLOOP_GITHUB_APP_KEY_FILE: %v; want refused, not echoed", err)
	}
}
