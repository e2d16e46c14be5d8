package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/testenv"
)

func TestDemoAgentFixesWhatTheFeedbackNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := setupDemo(dir); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	// First iteration: no feedback, the first bug in the file.
	if err := DemoAgent("Iteration 1 of 5", dir, &out); err != nil {
		t.Fatal(err)
	}
	// Then the feedback names TestTitle before TestReverse: Title is fixed next.
	if err := DemoAgent("feedback: FAIL TestTitle … FAIL TestReverse", dir, &out); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "textkit.go"))
	code := string(src)
	if !strings.Contains(code, "strings.Fields(s))") || !strings.Contains(code, "ToUpper(w[:1])") || !strings.Contains(code, "[]byte(s)") {
		t.Errorf("after two iterations the code is:\n%s", code)
	}
}

func TestDemoSampleFailsThenPassesWhenFixed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the sample project")
	}
	t.Parallel()
	goBin := testenv.NeedTool(t, "go")
	dir := t.TempDir()
	if err := setupDemo(dir); err != nil {
		t.Fatal(err)
	}
	run := func() (string, error) {
		cmd := exec.Command(goBin, "test", "./...")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	out, err := run()
	if err == nil || !strings.Contains(out, "TestWordCount") || !strings.Contains(out, "TestReverse") || !strings.Contains(out, "TestTitle") {
		t.Fatalf("sample should fail its three tests, got err=%v:\n%s", err, out)
	}
	for range demoFixes {
		if err := DemoAgent("", dir, &strings.Builder{}); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := run(); err != nil {
		t.Fatalf("after every fix the tests still fail: %v\n%s", err, out)
	}
}

// TestPrepare: the demo's project is the sample, its configuration (the
// agent is this program's demo-agent, the gate the go given) and, with git, a
// repository whose first commit holds it; without git, none and no warning.
func TestPrepareDemo(t *testing.T) {
	t.Parallel()
	gitBin := testenv.NeedTool(t, "git")
	var warned []string
	warnf := func(format string, args ...any) { warned = append(warned, format) }
	dir := t.TempDir()
	if err := PrepareDemo(t.Context(), dir, "/opt/agent loop", "/usr/go/bin/go", true, warnf); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "agentloop.yaml"))
	if err != nil || !strings.Contains(string(cfg), `cmd: ["/opt/agent loop", demo-agent]`) || !strings.Contains(string(cfg), `run: ["/usr/go/bin/go", test, -json, ./...]`) {
		t.Errorf("agentloop.yaml (%v):\n%s", err, cfg)
	}
	cmd := exec.Command(gitBin, "ls-tree", "-r", "--name-only", "HEAD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "textkit.go\n") || !strings.Contains(string(out), "agentloop.yaml\n") {
		t.Errorf("the first commit holds (%v):\n%s", err, out)
	}
	if len(warned) > 0 {
		t.Errorf("warned: %q", warned)
	}

	plain := t.TempDir()
	if err := PrepareDemo(t.Context(), plain, "agentloop", "go", false, warnf); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(plain, ".git")); !os.IsNotExist(err) || len(warned) > 0 {
		t.Errorf("without git: .git %v, warned %q", err, warned)
	}
}
