package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/agents.md has a row for every built-in preset with the command line it
// runs (as `agentloop agents` shows it) and the CLI version it is tested with.
func TestDocumentedPresets(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "agents.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(l, "| `"); ok {
			if i := strings.Index(name, "`"); i > 0 {
				rows[name[:i]] = l
			}
		}
	}
	for _, p := range Presets() {
		if p.Binary == "" { // custom: any command
			continue
		}
		row, ok := rows[p.Name]
		if !ok {
			t.Errorf("docs/agents.md has no row for the preset %s", p.Name)
			continue
		}
		argv, _ := p.Command("PROMPT", "PROMPT_FILE")
		if want := "| `" + strings.Join(argv, " ") + "` |"; !strings.Contains(row, want) {
			t.Errorf("docs/agents.md's row for %s does not say its command %s:\n%s", p.Name, want, row)
		}
		tested := p.Tested
		if tested == "" {
			tested = "-"
		}
		if want := "| " + tested + " |"; !strings.Contains(row, want) {
			t.Errorf("docs/agents.md's row for %s does not say it is tested with %s:\n%s", p.Name, want, row)
		}
	}
}
