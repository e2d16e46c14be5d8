package agent

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPresetsValid(t *testing.T) {
	t.Parallel()
	want := []string{"aider", "amp", "claude", "codex", "copilot", "cursor", "custom", "gemini", "goose", "kiro", "opencode", "qwen"}
	if diff := cmp.Diff(want, Names()); diff != "" {
		t.Errorf("Names() (-want +got):\n%s", diff)
	}
	for _, p := range Presets() {
		if p.Name == "custom" {
			if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "no command") {
				t.Errorf("custom without a command: Validate() = %v", err)
			}
			p = p.Merge(Override{Binary: "./my-agent"})
		}
		if err := p.Validate(); err != nil {
			t.Errorf("preset %s: %v", p.Name, err)
		}
		if p.Docs == "" {
			t.Errorf("preset %s has no Docs", p.Name)
		}
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	p, err := Lookup("claude")
	if err != nil || p.Binary != "claude" || p.Format != FormatClaudeStream {
		t.Fatalf("Lookup(claude) = %+v, %v", p, err)
	}
	p.Args[0] = "changed" // a copy: must not change the built-in
	if q, _ := Lookup("claude"); q.Args[0] != "-p" {
		t.Errorf("Lookup returned shared args")
	}
	_, err = Lookup("clude")
	if err == nil || !strings.Contains(err.Error(), "claude, codex") {
		t.Errorf("Lookup(clude) err = %v, want the known names", err)
	}
}

func TestCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		p         Preset
		wantArgv  []string
		wantStdin string
	}{
		{"claude stdin", mustLookup(t, "claude"),
			[]string{"claude", "-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"}, "do it"},
		{"codex stdin dash", mustLookup(t, "codex"),
			[]string{"codex", "exec", "--json", "--skip-git-repo-check", "--sandbox", "workspace-write", "-"}, "do it"},
		{"copilot flag arg", mustLookup(t, "copilot"),
			[]string{"copilot", "--output-format", "json", "--allow-all-tools", "--no-ask-user", "-p", "do it"}, ""},
		{"gemini flag arg", mustLookup(t, "gemini"),
			[]string{"gemini", "--output-format", "stream-json", "--yolo", "--prompt", "do it"}, ""},
		{"opencode positional", mustLookup(t, "opencode"),
			[]string{"opencode", "run", "--format", "json", "--auto", "do it"}, ""},
		{"aider file", mustLookup(t, "aider"),
			[]string{"aider", "--yes-always", "--no-pretty", "--no-stream", "--no-analytics", "--analytics-log", "{usage_log}",
				"--message-file", "/it/prompt.md"}, ""},
		{"placeholder", Preset{Binary: "x", Args: []string{"--in={prompt_file}", "-v"}, PromptVia: PromptFile, PromptFlag: "-f"},
			[]string{"x", "--in=/it/prompt.md", "-v"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			argv, stdin := tt.p.Command("do it", "/it/prompt.md")
			if diff := cmp.Diff(tt.wantArgv, argv); diff != "" || stdin != tt.wantStdin {
				t.Errorf("Command() stdin=%q (-want +got):\n%s", stdin, diff)
			}
		})
	}
}

// A prompt longer than one argument can carry goes on stdin where the CLI
// reads it there (gemini), not as an argument exec would refuse.
func TestCommandLongPromptOnStdin(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", maxArgPrompt+1)
	argv, stdin := mustLookup(t, "gemini").Command(long, "/it/prompt.md")
	if want := []string{"gemini", "--output-format", "stream-json", "--yolo"}; !slices.Equal(argv, want) || stdin != long {
		t.Errorf("Command(%d bytes) = %q, stdin of %d bytes; want %q and the prompt on stdin", len(long), argv, len(stdin), want)
	}
	argv, stdin = mustLookup(t, "copilot").Command(long, "/it/prompt.md")
	if stdin != "" || argv[len(argv)-1] != long {
		t.Errorf("copilot: stdin of %d bytes; want the prompt as its argument (the runner refuses it with what to set)", len(stdin))
	}
}

func mustLookup(t *testing.T, name string) Preset {
	t.Helper()
	p, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMerge(t *testing.T) {
	t.Parallel()
	base := mustLookup(t, "goose")
	got := base.Merge(Override{Binary: "/opt/goose", ExtraArgs: []string{"--max-turns", "50"},
		Env: map[string]string{"GOOSE_PROVIDER": "openai"}, PromptVia: PromptStdin, Format: FormatText})
	want := base
	want.Binary = "/opt/goose"
	want.Args = append(append([]string{}, base.Args...), "--max-turns", "50")
	want.Env = map[string]string{"GOOSE_MODE": "auto", "GOOSE_PROVIDER": "openai"}
	want.PromptVia, want.Format = PromptStdin, FormatText
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge() (-want +got):\n%s", diff)
	}
	if len(base.Env) != 1 || len(base.Args) != 4 {
		t.Errorf("Merge changed its receiver: %+v", base)
	}
	repl := base.Merge(Override{Args: []string{}})
	if len(repl.Args) != 0 {
		t.Errorf("Merge(Args: empty) kept %v, want none", repl.Args)
	}
	if bad := base.Merge(Override{PromptVia: "pigeon", Format: "xml"}); bad.Validate() == nil {
		t.Errorf("Validate accepted prompt_via pigeon and format xml")
	}
}

func TestInstalled(t *testing.T) {
	t.Parallel()
	look := func(name string) (string, error) {
		if name == "claude" {
			return "/usr/bin/claude", nil
		}
		return "", errors.New("not found")
	}
	if path, ok := Installed(mustLookup(t, "claude"), look); !ok || path != "/usr/bin/claude" {
		t.Errorf("Installed(claude) = %q, %v", path, ok)
	}
	if _, ok := Installed(mustLookup(t, "codex"), look); ok {
		t.Errorf("Installed(codex) = true, want false")
	}
	if _, ok := Installed(mustLookup(t, "custom"), look); ok {
		t.Errorf("Installed(custom without binary) = true")
	}
}
