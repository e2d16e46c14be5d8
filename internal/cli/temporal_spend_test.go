//go:build temporal

package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/ledger"
	"github.com/agentloop/agentloop/internal/testenv"
)

// TestTemporalSpendAndApprove: on a real dev server, a soft cap of the
// user's configuration parks a run started with --engine temporal before
// its second iteration: its needs-you record (agentloop inbox --engine
// temporal) names the approve command with the engine flags; spend --engine
// temporal says the cap is at its soft limit; budget approve --engine
// temporal wakes the run, which ends completed; spend --format json and csv
// then show what it spent, the cap approved.
func TestTemporalSpendAndApprove(t *testing.T) {
	testenv.NeedTool(t, "git")
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	// One iteration of claude-ok.jsonl costs $0.0421: the first is granted,
	// then the day's spend is past the soft limit.
	writeFile(t, filepath.Join(home, "config", "agentloop", "config.yaml"),
		"budgets:\n  caps:\n    - {name: day, period: day, soft_cost_usd: 0.03, max_cost_usd: 5}\n")
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	fake, err := filepath.Abs(filepath.Join("..", "..", "cmd", "agentloop", "testdata", "fake"))
	if err != nil {
		t.Fatal(err)
	}
	fakeProcedures(t, repo, aux, map[string]string{"build": "printfile " + fake + "/claude-ok.jsonl\n"},
		map[string]string{"build": "claude"}, nil)
	// No gates: the loop runs its two iterations.
	cfg := filepath.Join(repo, "agentloop.yaml")
	writeFile(t, cfg, strings.Replace(readFile(t, cfg), "  gates: [{name: check, run: \"true\"}]\n", "  gates: []\n", 1))
	graphRepo(t, repo, "tasks: []\n")
	run := cliOn(t, addr, repo)

	running := inBackground(run, "run", "build", "--engine", "temporal", "--max-iterations", "2")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out, _, err := run("inbox", "--engine", "temporal")
		if err == nil && strings.Contains(out, "agentloop budget approve day --engine temporal") {
			break
		}
		select {
		case r := <-running:
			t.Fatalf("the run ended before it was parked: %v\n%s\n%s", r.err, r.stdout, r.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run was not parked with the approve command in its needs-you record; the inbox says:\n%s (%v)", out, err)
		}
		time.Sleep(500 * time.Millisecond) // the inbox is a query: nothing to wait on
	}

	parked := spendJSON(t, run)
	if c := capNamed(t, parked, "day"); c.State != "parked" || c.Approved || c.Spent.Iterations != 1 {
		t.Errorf("parked: the cap is %s (approved %v) after %d iterations, want parked, not approved, after 1", c.State, c.Approved, c.Spent.Iterations)
	}
	if !strings.Contains(parked.Ledger, "agentloop-ledger on Temporal") {
		t.Errorf("spend says the ledger is %q, want the Temporal ledger workflow", parked.Ledger)
	}

	out, stderr, err := run("budget", "approve", "day", "--engine", "temporal")
	if err != nil || !strings.HasPrefix(out, "Approved cap day past its soft limit for ") || !strings.Contains(out, "on Temporal") {
		t.Fatalf("budget approve: %v\n%s\n%s", err, out, stderr)
	}
	r := ended(t, running, 2*time.Minute, "the run, approved,")
	if r.err != nil || !strings.Contains(r.stderr, "Finished: completed") {
		t.Fatalf("the run after the approval: %v\n%s\n%s", r.err, r.stdout, r.stderr)
	}

	done := spendJSON(t, run)
	c := capNamed(t, done, "day")
	if !c.Approved || c.Spent.Iterations != 2 || c.HeldUSD != 0 {
		t.Errorf("after the run: the cap is %+v, want approved, 2 iterations, nothing held", c)
	}
	if len(done.Periods) == 0 || len(done.Periods[0].Keys) != 1 {
		t.Fatalf("spend --format json: periods %+v, want today's spend on one key", done.Periods)
	}
	k := done.Periods[0].Keys[0]
	if k.Provider != "claude" || k.Iterations != 2 || k.USD != c.Spent.USD {
		t.Errorf("today's key is %+v, want claude's 2 iterations, the cap's $%g", k, c.Spent.USD)
	}

	csvOut, stderr, err := run("spend", "--engine", "temporal", "--format", "csv")
	if err != nil {
		t.Fatalf("spend --format csv: %v\n%s", err, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if err != nil {
		t.Fatalf("spend --format csv: %v\n%s", err, csvOut)
	}
	want := []string{"day", done.Periods[0].Name, "claude", k.Account, k.Model, fmt.Sprint(k.USD), "0", fmt.Sprint(k.Tokens), "2", ""}
	if len(rows) < 2 || strings.Join(rows[1], ",") != strings.Join(want, ",") {
		t.Errorf("spend --format csv:\n%s\nwant its first row %q", csvOut, want)
	}
}

// spendReport is what spend --format json says.
type spendReport struct {
	Ledger string `json:"ledger"`
	ledger.Report
}

// spendJSON is what spend --engine temporal --format json says.
func spendJSON(t *testing.T, run func(args ...string) (string, string, error)) spendReport {
	t.Helper()
	out, stderr, err := run("spend", "--engine", "temporal", "--format", "json")
	if err != nil {
		t.Fatalf("spend --format json: %v\n%s", err, stderr)
	}
	var r spendReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("spend --format json: %v\n%s", err, out)
	}
	return r
}

// capNamed is the cap of r named name.
func capNamed(t *testing.T, r spendReport, name string) ledger.CapReport {
	t.Helper()
	for _, c := range r.Caps {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("spend: no cap %s in %+v", name, r.Caps)
	return ledger.CapReport{}
}
