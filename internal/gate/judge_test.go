package gate

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/evidence"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func fixtureReport(t *testing.T, file, workDir string) Report {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "fixtures", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := Parse(f, Options{WorkDir: workDir, Module: "example.com/gosample"})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestFingerprintProperties(t *testing.T) {
	t.Parallel()
	fs := fixtureReport(t, "go/gotestsum_jsonfile.jsonl", "/src/gosample").Findings
	base := Fingerprint("tests", fs)
	if base == "" {
		t.Fatal("empty fingerprint for failures")
	}
	shifted := append([]evidence.Finding(nil), fs...)
	for i, j := 0, len(shifted)-1; i < j; i, j = i+1, j-1 {
		shifted[i], shifted[j] = shifted[j], shifted[i]
	}
	for i := range shifted {
		shifted[i].Line += 7
	}
	if got := Fingerprint("tests", shifted); got != base {
		t.Errorf("reordered and shifted: %s, want %s", got, base)
	}
	if got := Fingerprint("tests", fs[1:]); got == base {
		t.Error("fixing one failure kept the fingerprint")
	}
	added := append(append([]evidence.Finding(nil), fs...), fs[0])
	if got := Fingerprint("tests", added); got == base {
		t.Error("a duplicate failure kept the fingerprint (multiplicity lost)")
	}
	if got := Fingerprint("lint", fs); got == base {
		t.Error("the gate name is not part of the fingerprint")
	}
	// The same failures read from go test -json and from go test -v text agree.
	j := fixtureReport(t, "go/go_test_json_mixed.jsonl", "/src/gosample").Findings
	v := fixtureReport(t, "go/go_test_v_mixed.txt", "/src/gosample").Findings
	if Fingerprint("tests", j) != Fingerprint("tests", v) {
		t.Error("go test -json and -v text give different fingerprints for the same failures")
	}
	if Fingerprint("tests", nil) != "" {
		t.Error("no failures must give no fingerprint")
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"thread 'x' (11666) panicked after 1.5s", "thread 'x' panicked after <dur>"},
		{"goroutine 17 [running]: 0xc000012345", "goroutine N [running]: 0x?"},
		{"dial 127.0.0.1:38211 at 2026-11-21T17:13:10.5Z", "dial <addr> at <time>"},
		{"open /tmp/TestX123/001/f: denied", "open <tmp> denied"},
		{"id 123e4567-e89b-12d3-a456-426614174000 sha deadbeef42", "id <uuid> sha <hex>"},
		{"\x1b[31mAdd(2,2) = 4\x1b[0m,   want 5", "Add(N,N) = N, want N"},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	g := Gate{Name: "tests", Command: "go test -json ./...", Required: true}
	mixed := fixtureReport(t, "go/go_test_json_mixed.jsonl", "/src/gosample")
	vet := fixtureReport(t, "go/go_vet_json.txt", "/src/gosample")
	flaky := fixtureReport(t, "go/gotestsum_flaky_rerun.jsonl", "/src/gosample")

	if r := Judge(g, 1, Report{Tail: "segfault\n"}, nil); r.Passed || len(r.Findings) != 1 || r.Findings[0].Kind != evidence.KindGate || !strings.HasPrefix(r.Findings[0].Key, "GATE|tests|exit=1|") {
		t.Errorf("non-zero exit, nothing parsed: %+v", r)
	}
	if r := Judge(g, 0, vet, nil); r.Passed || len(r.Findings) != 1 {
		t.Errorf("go vet -json exit 0 with findings must fail: %+v", r)
	}
	if r := Judge(g, 0, flaky, nil); !r.Passed || len(r.Findings) != 0 || r.Fingerprint != "" {
		t.Errorf("flaky only must pass: %+v", r)
	}
	first := Judge(g, 1, mixed, nil)
	if first.Passed || len(first.Findings) != 4 || first.Fingerprint == "" {
		t.Fatalf("mixed: %+v", first)
	}
	// Baseline: the same failures again are preexisting, not the agent's.
	again := Judge(g, 1, mixed, &first)
	if len(again.Findings) != 0 || len(again.Preexisting) != 4 || again.Passed {
		t.Errorf("baseline: findings %d preexisting %d passed %v", len(again.Findings), len(again.Preexisting), again.Passed)
	}
	tol := g
	tol.TolerateBaseline = true
	if r := Judge(tol, 1, mixed, &first); !r.Passed {
		t.Error("tolerate_baseline with only baseline failures must pass")
	}
	fewer := mixed
	fewer.Findings = mixed.Findings[1:]
	r := Judge(tol, 1, fewer, &first)
	if diff := cmp.Diff([]string{"TEST|go|calc.TestLogin"}, r.Fixed); diff != "" || !r.Passed {
		t.Errorf("fixed (-want +got):\n%s passed=%v", diff, r.Passed)
	}
	if inf := Infra(g, "timed out after 10m"); inf.Passed || !inf.Infra || len(inf.Findings) != 0 {
		t.Errorf("Infra: %+v", inf)
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	d := Compare([]string{"a", "b"}, []string{"b", "c"}, map[string]int{"b": 2})
	want := Delta{New: []string{"c"}, Fixed: []string{"a"}, Still: []string{"b"}, Streak: map[string]int{"b": 3, "c": 1}}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("Compare (-want +got):\n%s", diff)
	}
}

// TestRenderGolden renders the feedback of each fixture set as the loop would.
func TestRenderGolden(t *testing.T) {
	t.Parallel()
	sets := []struct {
		name string
		file []string
		wd   string
	}{
		{"go", []string{"go/gotestsum_jsonfile.jsonl", "go/golangci_lint_json.json"}, "/src/gosample"},
		{"go_timeout", []string{"go/go_test_json_timeout.jsonl", "go/go_test_json_osexit.jsonl"}, "/src/gosample"},
		{"jest", []string{"js/jest_json.json", "js/eslint_json.json", "js/tsc_pretty_false.txt"}, "/src/nodesample"},
		{"vitest", []string{"js/vitest_json.json"}, "/src/nodesample"},
		{"mocha", []string{"js/mocha_json.json"}, "/src/nodesample"},
		{"node", []string{"node/node_test_default_nontty.tap"}, "/src/nodetest"},
		{"rust", []string{"rust/cargo_test_plain_nobt.stdout", "rust/cargo_test_compile_error.stderr"}, "/src/rustsample"},
		{"python", []string{"python/unittest_discover_importerror.txt", "python/mypy_default.txt"}, "/src/pysample"},
		{"tap", []string{"tap/perl_test_more_raw.tap"}, ""},
	}
	for _, s := range sets {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			var results []evidence.GateResult
			deltas := map[string]Delta{}
			for i, file := range s.file {
				name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
				r := Judge(Gate{Name: name, Command: "run " + name, Required: true}, 1, fixtureReport(t, file, s.wd), nil)
				r.LogPath = ".agentloop/runs/x/iter-002/gates/" + name + ".log"
				results = append(results, r)
				if i == 0 { // a previous iteration in which the first failure was the only one
					var keys []string
					for _, f := range r.Findings {
						keys = append(keys, Key(f))
					}
					deltas[name] = Compare(keys[:1], keys, map[string]int{keys[0]: 2})
				}
			}
			got := Render(results, deltas, RenderOptions{})
			if n := len([]rune(got)); n > DefaultMaxLength {
				t.Errorf("feedback is %d runes, over %d", n, DefaultMaxLength)
			}
			golden := filepath.Join("testdata", "render_"+s.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("Render (-want +got):\n%s", diff)
			}
		})
	}
}
