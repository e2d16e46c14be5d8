package target

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestAddTarget holds each way --notify writes a receiver, and what it refuses.
func TestAddTarget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		targets []string
		want    Config
		err     string // a part of the error; "" none
		hidden  string // what the error must not show
	}{
		{name: "URL", targets: []string{"https://hooks.example.com/in"}, want: Config{Webhooks: []Endpoint{{URL: "https://hooks.example.com/in"}}}},
		{name: "webhook", targets: []string{"webhook:http://127.0.0.1:8080/in"}, want: Config{Webhooks: []Endpoint{{URL: "http://127.0.0.1:8080/in"}}}},
		{name: "slack", targets: []string{"SLACK:https://hooks.slack.com/services/T0/B0/x"}, want: Config{Slack: []Endpoint{{URL: "https://hooks.slack.com/services/T0/B0/x"}}}},
		{name: "ntfy topic", targets: []string{"ntfy:my-runs"}, want: Config{Ntfy: []Endpoint{{URL: "https://ntfy.sh/my-runs"}}}},
		{name: "ntfy URL", targets: []string{"ntfy:https://ntfy.example.org/team"}, want: Config{Ntfy: []Endpoint{{URL: "https://ntfy.example.org/team"}}}},
		{name: "command", targets: []string{"command:./notify.sh --quiet"}, want: Config{Commands: [][]string{{"sh", "-c", "./notify.sh --quiet"}}}},
		{name: "desktop", targets: []string{"desktop"}, want: Config{Desktop: true}},
		{name: "none drops those before it", targets: []string{"desktop", "ntfy:a", "none", "slack:https://h.example/x"}, want: Config{Slack: []Endpoint{{URL: "https://h.example/x"}}}},
		{name: "empty command", targets: []string{"command: "}, err: "command: needs the command to run"},
		{name: "unknown kind", targets: []string{"pager:x"}, err: `"pager:x" is not a receiver; give ` + Syntax},
		{name: "desktop with a value", targets: []string{"desktop:x"}, err: "is not a receiver"},
		{name: "not http", targets: []string{"slack:ftp://hooks.slack.com/services/T0/B0/secret"}, err: `"ftp://hooks.slack.com/…" is not an http:// or https:// URL`, hidden: "secret"},
		{name: "no host", targets: []string{"webhook:https:///path-secret"}, err: `"…" is not`, hidden: "secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			var err error
			for _, s := range tc.targets {
				if err = c.AddTarget(s); err != nil {
					break
				}
			}
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("AddTarget: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("AddTarget: %v, want an error with %q", err, tc.err)
			case tc.hidden != "" && strings.Contains(err.Error(), tc.hidden):
				t.Errorf("AddTarget: %v shows %q", err, tc.hidden)
			case tc.err == "" && !reflect.DeepEqual(c, tc.want):
				t.Errorf("config %+v, want %+v", c, tc.want)
			}
		})
	}
}

// TestTold holds which kinds a configuration tells: every kind when it names
// none.
func TestTold(t *testing.T) {
	if c := (Config{}); !c.Empty() || !c.Told(KindBudget) {
		t.Errorf("the zero Config: Empty %v, tells budget_warning %v", c.Empty(), c.Told(KindBudget))
	}
	c := Config{Desktop: true, Events: []Kind{KindNeedsYou}}
	if c.Empty() || !c.Told(KindNeedsYou) || c.Told(KindFinished) {
		t.Errorf("%+v: Empty %v, tells needs_you %v, finished %v", c, c.Empty(), c.Told(KindNeedsYou), c.Told(KindFinished))
	}
}

// TestKindsDocumented holds Kinds to the table of docs/notifications.md that
// says when each type is told: the same kinds, in the same order.
func TestKindsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../../docs/notifications.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## What is told\n\n")
	table, _, _ := strings.Cut(section, "\n\n")
	rows := strings.Split(table, "\n")
	if !ok || len(rows) < 2 {
		t.Fatal("docs/notifications.md has no table under \"What is told\"")
	}
	var documented []string
	for _, line := range rows[2:] { // under the header and its rule
		if name, ok := strings.CutPrefix(line, "| `"); ok {
			name, _, _ = strings.Cut(name, "`")
			documented = append(documented, name)
		}
	}
	if !slices.Equal(documented, Kinds()) {
		t.Errorf("docs/notifications.md tells %q, Kinds are %q", documented, Kinds())
	}
}
