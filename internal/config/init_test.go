package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	got, kept, err := Init(dir, false)
	if err != nil || len(kept) != 0 {
		t.Fatalf("init: kept %q, err %v", kept, err)
	}
	want := []string{"agentloop.yaml", "AGENTS.md", "prompts/observe.md", "prompts/orient.md", "prompts/decide.md", "prompts/act.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("written (-want +got):\n%s", diff)
	}
	// The scaffold is valid and is what run uses.
	c, err := Load(Options{WorkDir: dir, UserConfigDir: filepath.Join(dir, "none"), Getenv: env()})
	if err != nil {
		t.Fatalf("scaffolded config does not load: %v", err)
	}
	p, err := c.Procedure("")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "build" || p.Builtin || p.Prompt.Observe.File != "prompts/observe.md" ||
		p.Limits.MaxIterations != 10 || p.Limits.FailureThreshold != 3 || p.Agent.Name != "claude" {
		t.Errorf("scaffolded build = %+v", p)
	}
	for _, f := range got {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}

	// A second init adds what is missing and keeps, naming them, the files
	// that exist.
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "prompts", "act.md")); err != nil {
		t.Fatal(err)
	}
	got, kept, err = Init(dir, false)
	if err != nil {
		t.Fatalf("second init: %v", err)
	}
	if diff := cmp.Diff([]string{"prompts/act.md"}, got); diff != "" {
		t.Errorf("second init wrote (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"agentloop.yaml", "AGENTS.md", "prompts/observe.md", "prompts/orient.md", "prompts/decide.md"}, kept); diff != "" {
		t.Errorf("second init kept (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "AGENTS.md")); string(b) != "mine" {
		t.Error("init without --force overwrote AGENTS.md")
	}
	if _, _, err := Init(dir, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "AGENTS.md")); string(b) == "mine" {
		t.Error("init --force did not overwrite AGENTS.md")
	}
}
