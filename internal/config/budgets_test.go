package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/ledger"
)

func TestBudgets(t *testing.T) {
	t.Parallel()
	global := `budgets:
  ledger: spend/ledger.jsonl
  caps:
    - {period: day, max_cost_usd: 20, soft_cost_usd: 15}
    - {name: claude-week, period: week, provider: claude, max_cost_usd: 50}
    - {period: month, model: o3, max_tokens: 1_000_000}
`
	c, err := load(t, global, "", nil, Overrides{DailyCap: ptr(5.0), MonthlyCap: ptr(100.0)})
	if err != nil {
		t.Fatal(err)
	}
	want := Budgets{On: true, Given: true, Ledger: "/g/spend/ledger.jsonl", Caps: []ledger.Cap{
		{Name: "day", Period: ledger.Day, MaxCostUSD: 5}, // --daily-cap below the soft limit: the soft limit goes
		{Name: "claude-week", Period: ledger.Week, Provider: "claude", MaxCostUSD: 50},
		{Name: "month/model=o3", Period: ledger.Month, Model: "o3", MaxTokens: 1_000_000},
		{Name: "month", Period: ledger.Month, MaxCostUSD: 100},
	}}
	if diff := cmp.Diff(want, c.Budgets); diff != "" {
		t.Errorf("budgets (-want +got):\n%s", diff)
	}
	if p := c.Budgets.LedgerPath(env("HOME", "/h")); p != "/g/spend/ledger.jsonl" {
		t.Errorf("ledger path %q", p)
	}
	c, err = load(t, "", "", nil, Overrides{})
	if err != nil || !c.Budgets.On || c.Budgets.Given {
		t.Errorf("no budgets: section: the ledger is kept, no caps given: %+v, %v", c.Budgets, err)
	}
	if p := c.Budgets.LedgerPath(env("HOME", "/h")); p != "/h/.local/state/agentloop/ledger.jsonl" {
		t.Errorf("default ledger path %q", p)
	}
	if p := c.Budgets.LedgerPath(env("HOME", "/h", "XDG_STATE_HOME", "/s")); p != "/s/agentloop/ledger.jsonl" {
		t.Errorf("XDG ledger path %q", p)
	}
	c, err = load(t, "budgets: {}\n", "", nil, Overrides{})
	if err != nil || !c.Budgets.On || len(c.Budgets.Caps) != 0 {
		t.Errorf("an empty budgets: section records without caps: %+v, %v", c.Budgets, err)
	}
	c, err = load(t, "budgets: {ledger: ~/spend.jsonl}\n", "", env("HOME", "/h"), Overrides{})
	if err != nil || c.Budgets.Ledger != "/h/spend.jsonl" {
		t.Errorf("~ in the ledger path: %+v, %v", c.Budgets, err)
	}
	for _, off := range []string{"off", "false"} {
		c, err = load(t, "budgets: {ledger: "+off+"}\n", "", nil, Overrides{})
		if err != nil || c.Budgets.On || c.Budgets.Given {
			t.Errorf("ledger: %s keeps no ledger: %+v, %v", off, c.Budgets, err)
		}
	}
	c, err = load(t, "budgets: {ledger: off}\n", "", nil, Overrides{DailyCap: ptr(5.0)})
	if err != nil || !c.Budgets.On || !c.Budgets.Given || len(c.Budgets.Caps) != 1 {
		t.Errorf("a cap flag keeps the ledger that the configuration turned off: %+v, %v", c.Budgets, err)
	}
	c, err = load(t, "budgets: {first_iteration_usd: 0.05}\n", "", nil, Overrides{})
	if err != nil || c.Budgets.FirstIterationUSD != 0.05 {
		t.Errorf("first_iteration_usd: %+v, %v", c.Budgets, err)
	}
}

func TestBudgetsErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, global, workspace string
		want                    []string
	}{
		{name: "in a workspace", workspace: "budgets:\n  caps: [{period: day, max_cost_usd: 1}]\n",
			want: []string{"agentloop.yaml:2:3: budgets: this section belongs in your own configuration"}},
		{name: "bad cap", global: `budgets:
  caps:
    - {period: year, max_cost_usd: 1}
    - {period: day}
    - {period: day, provider: claud, max_cost_usd: 1}
    - {period: week, max_cost_usd: 1, soft_cost_usd: 2}
    - {period: week, max_cost_usd: 3, colour: red}
    - {max_cost_usd: 3}
`, want: []string{
			`/g/config.yaml:3:16: budgets.caps[0].period: expected one of day, week, month, got "year"`,
			"budgets.caps[1]: no limit: give max_cost_usd",
			`budgets.caps[2].provider: unknown agent preset "claud"`,
			"budgets.caps[3]: soft_cost_usd 2 is above max_cost_usd 1",
			`a second cap named "week"`,
			"budgets.caps[4]",
			"colour",
			"budgets.caps[5]: a cap needs period: day, week or month",
		}},
		{name: "first iteration of nothing", global: "budgets: {first_iteration_usd: 0}\n", want: []string{"budgets.first_iteration_usd: a first iteration must reserve more than 0"}},
		{name: "first iteration negative", global: "budgets: {first_iteration_usd: -1}\n", want: []string{"budgets.first_iteration_usd: expected a number ≥ 0"}},
		{name: "ledger on", global: "budgets:\n  ledger: on\n", want: []string{"/g/config.yaml:2:11: budgets.ledger: the ledger is kept by default: give its file path, or off to keep none"}},
		{name: "ledger true", global: "budgets: {ledger: true}\n", want: []string{"budgets.ledger: the ledger is kept by default"}},
		{name: "caps without a ledger", global: "budgets:\n  ledger: off\n  caps: [{period: day, max_cost_usd: 1}]\n",
			want: []string{"/g/config.yaml:2:11: budgets.ledger: caps and first_iteration_usd need the ledger: remove ledger: off, or them"}},
		{name: "caps not a list", global: "budgets: {caps: {day: 5}}\n", want: []string{"budgets.caps: expected a list of caps, got a mapping"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := load(t, tt.global, tt.workspace, nil, Overrides{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
		})
	}
}
