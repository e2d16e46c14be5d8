//go:build unix

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestWatchInTmux runs `agentloop watch` in a real terminal (a tmux pane of
// 150×40) on a repository whose task graph of three tasks runs with the fake
// agent: one in its agent running a tool, one in its gates, one escalated.
// The screen shows each task's phase, the tool and the needs-you entry; then
// keys typed in the pane open the escalation and answer it with guidance, and
// the task's run goes on and ends succeeded. Screenshots of the pane, colours
// kept, are rendered by headless Chromium into $AGENTLOOP_ARTIFACTS.
func TestWatchInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("a task graph and a terminal in the background")
	}
	t.Parallel()
	tmux := testenv.NeedTool(t, "tmux")
	testenv.NeedTool(t, "git")
	root := t.TempDir()
	fake, err := filepath.Abs(filepath.Join("testdata", "fake"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		".gitignore": ".agentloop/\n.fa/\ngo-*\n",
		"tasks.yaml": `parallel: 3
tasks:
  - {id: one, title: Write one.txt, procedure: one}
  - {id: two, title: Write two.txt, procedure: two}
  - {id: three, title: Write three.txt, procedure: three}
`,
		"agentloop.yaml": `defaults:
  gates: [{name: check, run: "true"}]
procedures:
  one:
    agent: {preset: claude, cmd: [fakeagent], env: {FAKEAGENT_PLAN: @ROOT@/plans/one.txt, FAKEAGENT_DIR: @ROOT@/.fa/one}}
  two:
    agent: {cmd: [fakeagent], env: {FAKEAGENT_PLAN: @ROOT@/plans/two.txt, FAKEAGENT_DIR: @ROOT@/.fa/two}}
    gates: [{name: wait, run: "while [ ! -f @ROOT@/go-two ]; do sleep 0.1; done"}]
  three:
    agent: {cmd: [fakeagent], env: {FAKEAGENT_PLAN: @ROOT@/plans/three.txt, FAKEAGENT_DIR: @ROOT@/.fa/three}}
    gates: [{name: three, run: "test -f three.txt"}]
    limits: {max_iterations: 1}
`,
		"plans/one.txt": "printfile " + filepath.Join(fake, "claude-partial-tool.jsonl") + "\nwaitfor @ROOT@/go-one\nwrite one.txt one\nprintfile " + filepath.Join(fake, "claude-ok.jsonl") + "\n",
		"plans/two.txt": "write two.txt two\n",
		"plans/three.txt": `[prompt WATCH-GUIDANCE]
write three.txt three
[*]
print nothing to do
`,
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(text, "@ROOT@", root)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "HOME="+root, "XDG_CONFIG_HOME="+filepath.Join(root, ".config"), "IS_SANDBOX=1", "GORACE="+testenv.GORACE(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("git", "init", "-q", "-b", "main")
	run("git", "add", "-A")
	run("git", "commit", "-q", "-m", "start")

	graphOut := filepath.Join(t.TempDir(), "graph.out")
	out, err := os.Create(graphOut)
	if err != nil {
		t.Fatal(err)
	}
	graph := exec.Command("agentloop", "run", "--tasks", "tasks.yaml")
	graph.Dir, graph.Env, graph.Stdout, graph.Stderr = root, env, out, out
	graph.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := graph.Start(); err != nil {
		t.Fatal(err)
	}
	graphDone := make(chan error, 1)
	go func() { graphDone <- graph.Wait(); out.Close() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-graph.Process.Pid, syscall.SIGKILL)
		<-graphDone
	})

	sock := filepath.Join(t.TempDir(), "tmux.sock")
	pane := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(tmux, append([]string{"-S", sock}, args...)...)
		cmd.Dir, cmd.Env = root, env
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return string(b)
	}
	pane("-f", "/dev/null", "new-session", "-d", "-x", "150", "-y", "40", "agentloop watch --interval 250ms; sleep 600")
	t.Cleanup(func() { _ = exec.Command(tmux, "-S", sock, "kill-server").Run() })

	// screen waits until every pattern matches a line of the pane.
	screen := func(what string, patterns ...string) string {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		var s string
		for time.Now().Before(deadline) {
			s = pane("capture-pane", "-p")
			missing := false
			for _, p := range patterns {
				if !regexp.MustCompile("(?m)" + p).MatchString(s) {
					missing = true
					break
				}
			}
			if !missing {
				return s
			}
			time.Sleep(200 * time.Millisecond)
		}
		b, _ := os.ReadFile(graphOut)
		t.Fatalf("the screen never showed %s (%q):\n%s\ngraph's output:\n%s", what, patterns, s, b)
		return ""
	}
	screen("each task's phase, the tool and the needs-you entry",
		`^ *tasks-one +running +\d+/\S+ +agent [0-9.]+m?s .*Bash: go test \./\.\.\.`,
		`^ *tasks-two +running +\d+/\S+ +gates [0-9.]+m?s`,
		`^! tasks-three +escalated +1/1 +waiting for you`,
		`^Needs you \(1\)`,
		`^[ ▸] tasks-three.* — escalated`)
	shot(t, pane("capture-pane", "-p", "-e"), "watch-tmux-phases")

	// One and two end; the graph ends waiting for you (exit 4).
	for _, f := range []string{"go-one", "go-two"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-graphDone:
		graphDone <- err // for the cleanup
		if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 4 {
			b, _ := os.ReadFile(graphOut)
			t.Fatalf("the graph ended with %v, want exit 4 (a task escalated):\n%s", err, b)
		}
	case <-time.After(120 * time.Second):
		t.Fatal("the graph did not end once its tasks were let go")
	}
	screen("two tasks done", `^ *tasks-one +succeeded`, `^ *tasks-two +succeeded`, `^! tasks-three +escalated`)

	// Answer from watch: the next run that waits, open it, guide it.
	pane("send-keys", "n")
	pane("send-keys", "Enter")
	screen("the open escalation", `^Question: `, `escalation-\d+\.md`, `^# Escalation: Write three\.txt`)
	shot(t, pane("capture-pane", "-p", "-e"), "watch-tmux-escalation")
	pane("send-keys", "g")
	screen("the guidance prompt", `^Guidance for tasks-three:`)
	pane("send-keys", "-l", "WATCH-GUIDANCE: write three.txt")
	pane("send-keys", "Enter")
	screen("the resume started", `tasks-three goes on \(pid \d+\)`)
	pane("send-keys", "Escape")
	s := screen("the task resumed and ended",
		`^ *tasks-three +succeeded`, `resume tasks-three: exit 0`)
	shot(t, pane("capture-pane", "-p", "-e"), "watch-tmux-answered")
	if strings.Contains(s, "Needs you (") {
		t.Errorf("the needs-you entry is still there:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(root, "three.txt")); err != nil {
		t.Errorf("the resumed task's work is not merged: %v\nits output:\n%s", err, readFile(filepath.Join(root, ".agentloop", "watch", "tasks-three.log")))
	}
	pane("send-keys", "q")
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// shot renders the pane's text with its colours (capture-pane -e) as a PNG in
// the artifacts folder, through headless Chromium.
func shot(t *testing.T, ansiText, name string) {
	t.Helper()
	chromium := testenv.NeedTool(t, "chromium", "chromium-browser", "google-chrome")
	dir := os.Getenv("AGENTLOOP_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, name+".html")
	if err := os.WriteFile(page, []byte(terminalHTML(ansiText)), 0o644); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(dir, name+".png")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), "--window-size=1240,760", "--screenshot="+png, "file://"+page)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, b)
	}
	checkPNG(t, png)
	t.Logf("screenshot: %s", png)
}
