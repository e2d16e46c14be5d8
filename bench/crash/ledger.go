package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/bench/internal/harness"
)

// keepLedger gives the campaign a user configuration whose budgets: section
// keeps the shared spend ledger (no caps: nothing is refused), in folders of
// its own.
func (c *campaign) keepLedger() error {
	home := filepath.Join(c.Root, "home")
	conf := filepath.Join(home, ".config", "agentloop", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(conf), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(conf, []byte("budgets: {}\n"), 0o600); err != nil {
		return err
	}
	c.env = []string{"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, ".state")}
	c.ledger = filepath.Join(home, ".state", "agentloop", "ledger.jsonl")
	return nil
}

// costFixture is a Claude Code transcript that reports a cost ($0.0421).
func costFixture() string {
	return filepath.Join(harness.ModuleRoot(), "cmd", "agentloop", "testdata", "fake", "claude-ok.jsonl")
}

// reviewPlan is the scripted reviewer's: a Claude Code transcript that
// costs $0.03, asking for a different change on each of its first two
// calls (no two rounds alike; the loop escalates after three rounds without an approval), then approving.
var reviewPlan = func() string {
	verdict := func(v string, score int, findings string) string {
		return `print {"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"{\\"verdict\\":\\"` + v + `\\",\\"score\\":` + strconv.Itoa(score) + `,\\"tags\\":[],\\"findings\\":[` + findings + `],\\"confidence\\":0.9}","session_id":"crash-review","total_cost_usd":0.03,"usage":{"input_tokens":100,"output_tokens":50}}` + "\n"
	}
	var plan strings.Builder
	for i := 1; i <= 2; i++ {
		fmt.Fprintf(&plan, "[%d]\n%s", i, verdict("request_changes", 5, fmt.Sprintf(`{\\"id\\":\\"f%d\\",\\"severity\\":\\"minor\\",\\"file\\":\\"f%d.txt\\",\\"line\\":%d,\\"msg\\":\\"change %d\\"}`, i, i, i, i)))
	}
	plan.WriteString("[*]\n" + verdict("approve", 9, ""))
	return plan.String()
}()

// ledgerTally is what the ledger holds of some runs.
type ledgerTally struct {
	spent    map[string]float64 // run name → what its settlements charged
	settled  int                // settlements
	reviewed int                // settlements with a reviewer's charge
	agents   map[string]int     // provider → settlements charged to its agent
}

// readLedger tallies the ledger's records of the runs match accepts (a run
// is named "WORKDIR NAME" there) by their name, and finds what must never
// be: a reservation settled twice, a settlement without its reservation, a
// reservation still open after its run ended.
func (c *campaign) readLedger(match func(run string) bool) (ledgerTally, []string) {
	t := ledgerTally{spent: map[string]float64{}, agents: map[string]int{}}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	f, err := os.Open(c.ledger)
	if err != nil {
		return t, []string{"ledger: " + err.Error()}
	}
	defer f.Close()
	settled := map[string]int{}
	reserved := map[string]string{} // id → run
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var r struct {
			Kind    string `json:"k"`
			ID      string `json:"id"`
			Run     string `json:"run"`
			Charges []struct {
				Provider string  `json:"provider"`
				USD      float64 `json:"usd"`
			} `json:"charges"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			bad("ledger line %d does not parse: %v", line, err)
			continue
		}
		if !match(r.Run) {
			continue
		}
		switch r.Kind {
		case "reserve":
			reserved[r.ID] = r.Run
		case "settle":
			settled[r.ID]++
			t.settled++
			name := r.Run[strings.LastIndexByte(r.Run, ' ')+1:]
			for i, ch := range r.Charges {
				t.spent[name] += ch.USD
				if i == 0 {
					t.agents[ch.Provider]++
				}
			}
			if len(r.Charges) > 1 {
				t.reviewed++
			}
		}
	}
	for id, n := range settled {
		if n > 1 {
			bad("ledger: reservation %s settled %d times", id, n)
		}
		if _, ok := reserved[id]; !ok {
			bad("ledger: %s settled without a reservation", id)
		}
	}
	for id, run := range reserved {
		if settled[id] == 0 {
			bad("ledger: reservation %s of %s left open after the run ended", id, run)
		}
	}
	return t, problems
}

// checkLedger compares what the ledger holds spent by each of the ended runs
// names in dir with what the run recorded (its report's total); match
// selects the runs' records in the ledger (by "WORKDIR NAME").
func (c *campaign) checkLedger(dir string, match func(run string) bool, names ...string) (ledgerTally, []string) {
	t, problems := c.readLedger(match)
	for _, name := range names {
		cmd := exec.Command(c.Agentloop, "report", name, "--format", "json")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), c.env...)
		out, err := cmd.Output()
		if err != nil {
			problems = append(problems, fmt.Sprintf("report %s: %v", name, err))
			continue
		}
		var rep struct {
			Summary struct {
				Total struct {
					CostUSD float64 `json:"cost_usd"`
				} `json:"total_usage"`
			} `json:"summary"`
		}
		if err := json.Unmarshal(out, &rep); err != nil {
			problems = append(problems, fmt.Sprintf("report %s does not parse: %v", name, err))
			continue
		}
		if math.Abs(t.spent[name]-rep.Summary.Total.CostUSD) > 1e-9 {
			problems = append(problems, fmt.Sprintf("the ledger holds $%.4f spent by %s, the run recorded $%.4f", t.spent[name], name, rep.Summary.Total.CostUSD))
		}
	}
	return t, problems
}
