package gate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/evidence"
)

// TestFeedbackCommandReadsWhatFormatsSay checks the verdict `agentloop feedback`
// gives on inputs whose format decides the answer.
func TestFeedbackCommandReadsWhatFormatsSay(t *testing.T) {
	t.Parallel()
	fixture := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "fixtures", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	random := string([]byte{0x8f, 0x01, 0xfe, 0x7a, 0x00, 0x33, 0xc4, 0x9d, 0x10, 0xee, 0x42, 0x05})
	tests := []struct {
		name    string
		in      string
		exit    int
		want    []string
		wantErr string
	}{
		{"sarif result without level is a warning that counts", fixture("sarif/codeql_no_level.sarif"), -1,
			[]string{"gate failed: 2 lint findings", "js/unused-local-variable (src/a.js:3): Unused variable x.", "(src/b.js:5): Unused variable y."}, ""},
		{"sarif rule default level applies", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","rules":[{"id":"R1","defaultConfiguration":{"level":"error"}}]}},"results":[{"ruleId":"R1","message":{"text":"bad"}}]}]}`, 0,
			[]string{"gate failed (exit 0): 1 lint", "R1: bad"}, ""},
		{"sarif message by id", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","rules":[{"id":"R1","messageStrings":{"default":{"text":"from the rule"}}}]}},"results":[{"ruleIndex":0,"level":"error","message":{"id":"default"}}]}]}`, -1,
			[]string{"R1: from the rule"}, ""},
		{"clean sarif passes", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[]}]}`, -1,
			[]string{"gate passed: 0 passed, 0 skipped (format sarif)"}, ""},
		{"random bytes are no results", random, -1, nil, "no test results found (format generic)"},
		{"empty input is no results", "", -1, nil, "no test results found (format generic)"},
		{"plain words are no results", "all good\n", -1, nil, "no test results found (format generic)"},
		{"no results with a known exit 0 says so", "", 0, []string{"gate exited 0: no test results found (format generic)"}, ""},
		{"no results with a failing exit fails", "", 2, []string{"gate failed (exit 2): 1 failure with no parsable output"}, ""},
		{"passing go tests pass", `{"Action":"pass","Package":"m/p","Test":"TestA"}` + "\n" + `{"Action":"pass","Package":"m/p"}` + "\n", -1,
			[]string{"gate passed: 1 passed, 0 skipped (format gotest-json)"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, js := range []bool{false, true} {
				var out bytes.Buffer
				err := FeedbackCommand(strings.NewReader(tt.in), &out, FeedbackOptions{ExitCode: tt.exit, JSON: js})
				if tt.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("json=%v: err = %v, want %q (output %q)", js, err, tt.wantErr, out.String())
					}
					continue
				}
				if err != nil {
					t.Fatalf("json=%v: %v", js, err)
				}
				if js {
					continue
				}
				for _, w := range tt.want {
					if !strings.Contains(out.String(), w) {
						t.Errorf("feedback %q lacks %q", out.String(), w)
					}
				}
			}
		})
	}
}

// TestPackageCrashNamedByImportPath: a package that panics outside any test is
// named by its import path, whatever the module, in JSON and in text output.
func TestPackageCrashNamedByImportPath(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"go/go_test_json_init_panic.jsonl", "go/go_test_init_panic.txt"} {
		for _, module := range []string{"", "example.com/m", "example.com/m/package"} {
			t.Run(file+"/"+module, func(t *testing.T) {
				t.Parallel()
				f, err := os.Open(filepath.Join("testdata", "fixtures", file))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				rep, err := Parse(f, Options{WorkDir: "/src/m", Module: module})
				if err != nil {
					t.Fatal(err)
				}
				if len(rep.Findings) != 1 {
					t.Fatalf("findings = %+v, want one crash", rep.Findings)
				}
				got := rep.Findings[0]
				want := evidence.Finding{Kind: evidence.KindCrash, ID: "example.com/m/package/panic", File: "package/panic/p.go", Line: 3}
				if got.Kind != want.Kind || got.ID != want.ID || got.File != want.File || got.Line != want.Line || !strings.Contains(got.Message, "boom in init") {
					t.Errorf("finding = %+v, want %+v with the panic message", got, want)
				}
			})
		}
	}
}

// FuzzFeedbackCommand: whatever the input, feedback never panics, and it never
// reports a passed gate from input in which nothing was recognised.
func FuzzFeedbackCommand(f *testing.F) {
	for _, name := range []string{"sarif/codeql_no_level.sarif", "go/go_test_json_init_panic.jsonl", "go/go_test_init_panic.txt", "go/golangci_lint_sarif.sarif"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "fixtures", name)); err == nil {
			f.Add(b, int8(-1))
		}
	}
	f.Add([]byte{}, int8(-1))
	f.Add([]byte("ok  \tm/p\t0.01s\n"), int8(0))
	f.Fuzz(func(t *testing.T, data []byte, exit int8) {
		var out bytes.Buffer
		err := FeedbackCommand(bytes.NewReader(data), &out, FeedbackOptions{ExitCode: int(exit), WorkDir: "/src"})
		if err != nil {
			return
		}
		rep, perr := Parse(bytes.NewReader(data), Options{WorkDir: "/src"})
		if perr != nil {
			t.Fatalf("feedback succeeded where Parse failed: %v", perr)
		}
		if exit < 0 && strings.Contains(out.String(), " passed: ") && !recognised(rep) {
			t.Errorf("passed from unrecognised input: %q", out.String())
		}
	})
}
