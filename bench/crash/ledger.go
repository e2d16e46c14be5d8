package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"

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

// checkLedger compares what the ledger holds spent by the ended run in dir
// with what the run recorded (its report's total), and looks for a
// reservation settled twice.
func (c *campaign) checkLedger(dir string) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	f, err := os.Open(c.ledger)
	if err != nil {
		return []string{"ledger: " + err.Error()}
	}
	defer f.Close()
	run := dir + " build"
	settled := map[string]int{}
	reserved := map[string]bool{}
	var spent float64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var r struct {
			Kind    string `json:"k"`
			ID      string `json:"id"`
			Run     string `json:"run"`
			Charges []struct {
				USD float64 `json:"usd"`
			} `json:"charges"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			bad("ledger line %d does not parse: %v", line, err)
			continue
		}
		if r.Run != run {
			continue
		}
		switch r.Kind {
		case "reserve":
			reserved[r.ID] = true
		case "settle":
			settled[r.ID]++
			for _, ch := range r.Charges {
				spent += ch.USD
			}
		}
	}
	for id, n := range settled {
		if n > 1 {
			bad("ledger: reservation %s settled %d times", id, n)
		}
		if !reserved[id] {
			bad("ledger: %s settled without a reservation", id)
		}
	}
	cmd := exec.Command(c.Agentloop, "report", "build", "--format", "json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), c.env...)
	out, err := cmd.Output()
	if err != nil {
		return append(problems, fmt.Sprintf("report: %v", err))
	}
	var rep struct {
		Summary struct {
			Total struct {
				CostUSD float64 `json:"cost_usd"`
			} `json:"total_usage"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return append(problems, fmt.Sprintf("report does not parse: %v", err))
	}
	if math.Abs(spent-rep.Summary.Total.CostUSD) > 1e-9 {
		bad("the ledger holds $%.4f spent by the run (%d settled of %d reserved), the run recorded $%.4f", spent, len(settled), len(reserved), rep.Summary.Total.CostUSD)
	}
	return problems
}
