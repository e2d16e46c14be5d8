package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestRulesUpToDate: gitleaks_rules.go is what the pinned catalog gives.
func TestRulesUpToDate(t *testing.T) {
	testenv.NeedTool(t, "go")
	dir, err := download()
	if err != nil {
		if testenv.CI() {
			t.Fatalf("the pinned catalog cannot be downloaded: %v", err)
		}
		t.Skipf("the pinned catalog cannot be downloaded (no module proxy?): %v", err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "config", "gitleaks.toml"))
	if err != nil {
		t.Fatal(err)
	}
	license, err := os.ReadFile(filepath.Join(dir, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Generate(src, license)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../gitleaks_rules.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("gitleaks_rules.go is not what the pinned catalog gives: run go generate ./internal/redact")
	}
	if !bytes.Contains(got, []byte("Copyright (c) 2019 Zachary Rice")) {
		t.Error("gitleaks_rules.go does not carry gitleaks' license")
	}
}

// TestGenerateRefuses: what the redactor cannot apply as written stops the
// translation, naming the rule.
func TestGenerateRefuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, toml, want string }{
		{"lookahead", "[[rules]]\nid = \"ahead\"\nregex = '''secret(?=x)'''\nkeywords = [\"secret\"]\n", "rule ahead: Go's regexp"},
		{"backreference", "[[rules]]\nid = \"back\"\nregex = '''(a)\\1'''\nkeywords = [\"a\"]\n", "rule back: Go's regexp"},
		{"group", "[[rules]]\nid = \"grp\"\nregex = '''a(b)'''\nsecretGroup = 2\nkeywords = [\"a\"]\n", "rule grp: secretGroup 2"},
		{"no keywords", "[[rules]]\nid = \"nokw\"\nregex = '''abc'''\n", "rule nokw has no keywords"},
		{"upper keyword", "[[rules]]\nid = \"up\"\nregex = '''abc'''\nkeywords = [\"ABC\"]\n", "not lower case"},
		{"unknown field", "[[rules]]\nid = \"new\"\nregex = '''abc'''\nkeywords = [\"abc\"]\nvalidate = true\n", "fields the translation does not know"},
	} {
		_, err := Generate([]byte(tt.toml), []byte("MIT"))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one with %q", tt.name, err, tt.want)
		}
	}
	out, err := Generate([]byte("[allowlist]\npaths = ['''x''']\nregexes = ['''^y$''']\n[[rules]]\nid = \"p\"\nregex = '''pk_[a-z]{8}'''\npath = '''\\.php$'''\nkeywords = [\"pk_\"]\n[[rules]]\nid = \"f\"\npath = '''\\.p12$'''\n"), []byte("MIT"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Path: `\\.php$`", "// f: a rule on file names only", "without its 1 patterns of file paths"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("the translation does not say %q:\n%s", want, out)
		}
	}
}
