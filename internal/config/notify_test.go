package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/notify/target"
)

// TestNotify: the notify: section of every tier merges key by key (a list of
// receivers replaces another), the built-in tier gives the tuning, and
// --notify adds receivers ("none" drops those before it).
func TestNotify(t *testing.T) {
	t.Parallel()
	global := `notify:
  slack: {url_env: SLACK_WEBHOOK_URL}
  desktop: true
  retries: 5
`
	ws := `notify:
  webhook:
    - https://hooks.example.com/agentloop
    - {url: "http://127.0.0.1:8080/in", secret_env: HOOK_SECRET}
  ntfy: my-runs
  command: "./notify.sh --quiet"
  events: [needs_you, finished]
  rate_limit_after: 30m
`
	c, err := load(t, global, ws, nil, Overrides{Notify: []string{"ntfy:https://ntfy.example.org/team", "command:cat"}})
	if err != nil {
		t.Fatal(err)
	}
	want := target.Config{
		Webhooks:       []target.Endpoint{{URL: "https://hooks.example.com/agentloop"}, {URL: "http://127.0.0.1:8080/in", SecretEnv: "HOOK_SECRET"}},
		Slack:          []target.Endpoint{{URLEnv: "SLACK_WEBHOOK_URL"}},
		Ntfy:           []target.Endpoint{{URL: "https://ntfy.sh/my-runs"}, {URL: "https://ntfy.example.org/team"}},
		Commands:       [][]string{{"sh", "-c", "./notify.sh --quiet"}, {"sh", "-c", "cat"}},
		Desktop:        true,
		Events:         []target.Kind{target.KindNeedsYou, target.KindFinished},
		RateLimitAfter: 30 * time.Minute, Timeout: target.DefaultTimeout, Retries: 5,
	}
	if diff := cmp.Diff(want, c.Notify); diff != "" {
		t.Errorf("Notify mismatch (-want +got):\n%s", diff)
	}
	for _, s := range c.Sources("") {
		if strings.HasPrefix(s.Key, "notify") {
			t.Errorf("source %+v: notify's URLs are not listed", s)
		}
	}

	c, err = load(t, global, ws, nil, Overrides{Notify: []string{"none", "desktop"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Notify; len(n.Webhooks)+len(n.Slack)+len(n.Ntfy)+len(n.Commands) != 0 || !n.Desktop || n.Retries != 5 {
		t.Errorf("--notify none desktop: %+v", n)
	}

	c, err = load(t, "", "", nil, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Notify.Empty() || c.Notify.RateLimitAfter != target.DefaultRateLimitAfter || c.Notify.Retries != target.DefaultRetries {
		t.Errorf("built-in notify: %+v", c.Notify)
	}

	_, err = load(t, "", "", nil, Overrides{Notify: []string{"pager:x"}})
	if err == nil || !strings.Contains(err.Error(), `flag --notify: "pager:x" is not a receiver`) {
		t.Errorf("--notify pager:x: %v", err)
	}
}
