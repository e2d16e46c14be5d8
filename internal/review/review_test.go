package review

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/evidence"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// canned is an Asker that answers from a list and records the prompts.
type canned struct {
	answers []string
	errs    []error
	prompts []string
}

func (c *canned) ask(_ context.Context, prompt string) (string, error) {
	i := len(c.prompts)
	c.prompts = append(c.prompts, prompt)
	if i < len(c.errs) && c.errs[i] != nil {
		return "", c.errs[i]
	}
	if i >= len(c.answers) {
		return "", errors.New("no more answers")
	}
	return c.answers[i], nil
}

func TestReview(t *testing.T) {
	t.Parallel()
	in := Input{Task: "add Div", Diff: "diff --git a/x b/x\n", Round: 2, MaxRounds: 3}
	tests := []struct {
		name     string
		c        canned
		want     evidence.Review
		wantErr  bool
		asks     int
		fixNamed string // what the correction prompt must name
	}{
		{name: "first answer parses", c: canned{answers: []string{`{"verdict":"approve","score":8}`}},
			want: evidence.Review{Verdict: "approve", Score: 8, Round: 2}, asks: 1},
		{name: "second answer parses", c: canned{answers: []string{"LGTM!", "```json\n{\"verdict\":\"request_changes\",\"score\":5}\n```"}},
			want: evidence.Review{Verdict: "request_changes", Score: 5, Round: 2}, asks: 2, fixNamed: "no JSON object"},
		{name: "invalid verdict then still invalid", c: canned{answers: []string{`{"verdict":"ok","score":5}`, `{"verdict":"fine","score":5}`}},
			want: evidence.Review{Verdict: "unknown", Round: 2, Summary: `reviewer answer unusable twice: parse review: verdict "fine": want "approve", "request_changes" or "reject"`},
			asks: 2, fixNamed: `verdict "ok"`},
		{name: "reviewer fails to run", c: canned{errs: []error{errors.New("exit 1")}},
			want: evidence.Review{Verdict: "unknown", Round: 2}, wantErr: true, asks: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := tt.c
			got, err := Review(t.Context(), c.ask, in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Review() err = %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Review() (-want +got):\n%s", diff)
			}
			if len(c.prompts) != tt.asks {
				t.Fatalf("asked %d times, want %d", len(c.prompts), tt.asks)
			}
			if c.prompts[0] != Prompt(in) {
				t.Error("first prompt is not Prompt(in)")
			}
			if tt.asks == 2 {
				if !strings.HasPrefix(c.prompts[1], c.prompts[0]) || !strings.Contains(c.prompts[1][len(c.prompts[0]):], tt.fixNamed) {
					t.Errorf("correction prompt does not name %q:\n%s", tt.fixNamed, c.prompts[1][len(c.prompts[0]):])
				}
			}
		})
	}
}

func TestPromptGolden(t *testing.T) {
	t.Parallel()
	diff := "diff --git a/pkg/calc/calc.go b/pkg/calc/calc.go\n--- a/pkg/calc/calc.go\n+++ b/pkg/calc/calc.go\n@@ -1 +1 @@\n-func Div(a, b int) int { return a / b }\n+func Div(a, b int) (int, error) {\n" +
		"diff --git a/pkg/calc/calc_test.go b/pkg/calc/calc_test.go\n--- a/pkg/calc/calc_test.go\n+++ b/pkg/calc/calc_test.go\n@@ -1 +1 @@\n+\tt.Skip(\"later\")\n"
	in := Input{
		Task: "Make Div return an error on a zero divisor.",
		Diff: diff, MaxDiff: 220, Round: 2, MaxRounds: 3,
		Gates: []evidence.GateResult{
			{Name: "tests", Required: true, ExitCode: 1, Tests: evidence.TestCounts{Passed: 4, Failed: 1, Skipped: 1},
				Findings:    []evidence.Finding{{Kind: evidence.KindTest, ID: "calc.TestMod", File: "pkg/calc/calc_test.go", Line: 20, Message: "Mod(7, 0) = 0, want error\n  more detail"}},
				Preexisting: []evidence.Finding{{Kind: evidence.KindTest, ID: "calc.TestOld"}}},
			{Name: "lint", Required: false, Passed: true},
			{Name: "e2e", Required: true, Infra: true, InfraReason: "timed out after 10m"},
		},
		Facts:    &evidence.DiffFacts{Files: []string{"pkg/calc/calc.go", "pkg/calc/calc_test.go"}, Added: 2, Deleted: 1, SkipsAdded: 1, TestFilesChanged: []string{"pkg/calc/calc_test.go"}},
		Previous: &evidence.Review{Verdict: "request_changes", Score: 4, Summary: "Zero divisor panics.", Findings: []evidence.ReviewFinding{{ID: "div-zero", Severity: "blocker", File: "pkg/calc/calc.go", Line: 7, Message: "Div panics on zero"}}},
	}
	got := Prompt(in)
	golden := filepath.Join("testdata", "TestPromptGolden.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run go test -update): %v", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("Prompt (-want +got):\n%s", d)
	}
	for _, must := range []string{"[diff cut:", "pkg/calc/calc_test.go — read them", `"verdict"`, "FAILED (exit 1)", "COULD NOT RUN", "1 test skip marker(s) added", "div-zero", "round 2 of at most 3"} {
		if !strings.Contains(got, must) {
			t.Errorf("prompt lacks %q", must)
		}
	}
}

func TestPromptTemplate(t *testing.T) {
	t.Parallel()
	in := Input{Task: "T", Diff: "D", Round: 1, MaxRounds: 3}
	got := Prompt(Input{Task: in.Task, Diff: in.Diff, Round: 1, MaxRounds: 3, Template: "Review {{.Task}} (round {{.Round}}/{{.MaxRounds}}):\n{{.Diff}}"})
	if !strings.HasPrefix(got, "Review T (round 1/3):\nD") || !strings.Contains(got, `"verdict"`) {
		t.Errorf("template prompt without the contract appended:\n%s", got)
	}
	withContract := Prompt(Input{Task: "T", Template: "{{.Task}}\n{{.Contract}}"})
	if strings.Count(withContract, "## Answer format") != 1 {
		t.Errorf("contract repeated:\n%s", withContract)
	}
	broken := Prompt(Input{Task: "T", Template: "{{.Nope}}"})
	if !strings.Contains(broken, "You are the code reviewer") || !strings.Contains(broken, "template failed") {
		t.Errorf("a failing template did not fall back:\n%s", broken)
	}
	if CheckTemplate("{{.Task}}") != nil || CheckTemplate("{{.Nope}}") == nil || CheckTemplate("{{") == nil {
		t.Error("CheckTemplate accepts a bad template or rejects a good one")
	}
	if p := Prompt(in); !strings.Contains(p, "```diff\nD\n```") || strings.Contains(p, "diff cut") {
		t.Errorf("built-in prompt:\n%s", p)
	}
}

func TestPromptFenceSurvivesBackticks(t *testing.T) {
	t.Parallel()
	p := Prompt(Input{Task: "docs", Diff: "+```go\n+x\n+```\n"})
	if !strings.Contains(p, "````diff\n+```go") {
		t.Errorf("fence not lengthened:\n%s", p)
	}
}

// The reviewer is told which failures were there before the run and are
// outside the task, under their own heading and on their gate's line, and
// that they alone do not stand in the way of an approval; a failure there
// before the run that is not outside the task, and one the change brought
// in, are not listed there. Told none, the prompt has no such heading.
func TestPromptOutsideTask(t *testing.T) {
	t.Parallel()
	remote := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestRemote", File: "remote_test.go", Line: 10, Message: "CALC_TOKEN is not set"}
	old := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestOld", Message: "old failure"}
	sub := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestSub", Message: "Sub is wrong"}
	in := Input{Task: "Fix TestAdd.", Diff: "diff --git a/calc.go b/calc.go\n", Round: 1, Gates: []evidence.GateResult{
		{Name: "go-test", Required: true, ExitCode: 1, Findings: []evidence.Finding{sub}, Preexisting: []evidence.Finding{remote, old}},
	}}
	if p := Prompt(in); strings.Contains(p, "## "+OutsideTaskHeading) || strings.Contains(p, "outside the task (listed") {
		t.Errorf("told nothing outside the task, the prompt says some is:\n%s", p)
	}
	in.OutsideTask = map[string][]evidence.Finding{"go-test": {remote}}
	p := Prompt(in)
	for _, must := range []string{
		"- go-test (required): FAILED (exit 1); 2 failure(s) existed before this change, 1 of them outside the task (listed under \"" + OutsideTaskHeading + "\")\n",
		"## " + OutsideTaskHeading + "\n\n" + outsideTaskText + "\n\n- go-test: test remote_test.go:10 calc.TestRemote: CALC_TOKEN is not set\n",
		"Never approve when a required gate failed or the diff is empty; a failure listed under\n  \"" + OutsideTaskHeading + "\" does not count",
	} {
		if !strings.Contains(p, must) {
			t.Errorf("prompt lacks %q:\n%s", must, p)
		}
	}
	section := p[strings.Index(p, "## "+OutsideTaskHeading):]
	section = section[:strings.Index(section, "\n## ")]
	for _, never := range []string{"calc.TestOld", "calc.TestSub"} {
		if strings.Contains(section, never) {
			t.Errorf("%s listed outside the task:\n%s", never, section)
		}
	}
	if d := data(in); d.Outside == "" {
		t.Error("a template is given no failures outside the task")
	}
}
