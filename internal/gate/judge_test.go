package gate

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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

// fingerprintOf keys a copy of fs as [Judge] does and fingerprints the keys.
func fingerprintOf(scope string, fs []evidence.Finding) string {
	c := slices.Clone(fs)
	assignKeys(c)
	keys := make([]string, len(c))
	for i, f := range c {
		keys[i] = f.Key
	}
	return Fingerprint(scope, keys)
}

func TestFingerprintProperties(t *testing.T) {
	t.Parallel()
	fs := fixtureReport(t, "go/gotestsum_jsonfile.jsonl", "/src/gosample").Findings
	base := fingerprintOf("tests", fs)
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
	if got := fingerprintOf("tests", shifted); got != base {
		t.Errorf("reordered and shifted: %s, want %s", got, base)
	}
	if got := fingerprintOf("tests", fs[1:]); got == base {
		t.Error("fixing one failure kept the fingerprint")
	}
	added := append(append([]evidence.Finding(nil), fs...), fs[0])
	if got := fingerprintOf("tests", added); got == base {
		t.Error("a duplicate failure kept the fingerprint (multiplicity lost)")
	}
	if got := fingerprintOf("lint", fs); got == base {
		t.Error("the gate name is not part of the fingerprint")
	}
	// The same failures read from go test -json and from go test -v text agree.
	j := fixtureReport(t, "go/go_test_json_mixed.jsonl", "/src/gosample").Findings
	v := fixtureReport(t, "go/go_test_v_mixed.txt", "/src/gosample").Findings
	if fingerprintOf("tests", j) != fingerprintOf("tests", v) {
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
	tests := []struct {
		name    string
		history [][]string
		cur     []string
		want    Delta
	}{
		{"first iteration: all new", nil, []string{"b", "a"},
			Delta{New: []string{"a", "b"}, Streak: map[string]int{"a": 1, "b": 1}}},
		{"new, fixed and still", [][]string{{"b"}, {"a", "b"}}, []string{"b", "c"},
			Delta{New: []string{"c"}, Fixed: []string{"a"}, Still: []string{"b"}, Streak: map[string]int{"b": 3, "c": 1}}},
		{"a streak ends at the first gap", [][]string{{"a"}, {}, {"a"}, {"a"}}, []string{"a"},
			Delta{Still: []string{"a"}, Streak: map[string]int{"a": 3}}},
		{"back after a green iteration is new", [][]string{{"a"}, nil}, []string{"a"},
			Delta{New: []string{"a"}, Streak: map[string]int{"a": 1}}},
		{"all fixed", [][]string{{"a", "b"}}, nil,
			Delta{Fixed: []string{"a", "b"}, Streak: map[string]int{}}},
		{"duplicate keys count once", [][]string{{"a"}}, []string{"a", "a", "b#2"},
			Delta{New: []string{"b#2"}, Still: []string{"a"}, Streak: map[string]int{"a": 2, "b#2": 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Compare(tt.history, tt.cur)); diff != "" {
				t.Errorf("Compare (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKeyAndLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		f         evidence.Finding
		key, like string
	}{
		{"a test is keyed on its id alone", evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestAdd", File: "calc_test.go", Line: 7, Message: "Add(2,3) = -1, want 5"},
			"TEST|go|calc.TestAdd", "calc.TestAdd"},
		{"a crash too", evidence.Finding{Kind: evidence.KindCrash, Tool: "go", ID: "example.com/m/p", Message: "panic: boom"},
			"CRASH|go|example.com/m/p", "example.com/m/p"},
		{"a lint finding on rule, file and normalized message, no line", evidence.Finding{Kind: evidence.KindLint, Tool: "eslint", ID: "no-unused-vars", File: "src/a.js", Line: 3, Message: "'x' is assigned 12 times"},
			"LINT|eslint|no-unused-vars|src/a.js|'x' is assigned N times", "src/a.js: 'x' is assigned N times"},
		{"a build error without rule", evidence.Finding{Kind: evidence.KindBuild, Tool: "go", File: "a.go", Line: 9, Message: "undefined: Foo"},
			"BUILD|go||a.go|undefined: Foo", "a.go: undefined: Foo"},
		{"a key set by Judge is kept", evidence.Finding{Kind: evidence.KindTest, ID: "x", Key: "TEST|go|x#2"}, "TEST|go|x#2", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Key(tt.f); got != tt.key {
				t.Errorf("Key = %q, want %q", got, tt.key)
			}
			if got := Label(Key(tt.f)); got != tt.like {
				t.Errorf("Label = %q, want %q", got, tt.like)
			}
			moved := tt.f
			moved.Line += 40
			if Key(moved) != Key(tt.f) {
				t.Error("the key changed when the code moved")
			}
		})
	}
	if got := Label("GATE|tests|exit=2|0123456789abcdef"); got != "gate tests (exit 2, no parsable failure)" {
		t.Errorf("Label(GATE…) = %q", got)
	}
	if got := Label("test:A"); got != "test:A" {
		t.Errorf("Label of a foreign key = %q", got)
	}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	a := Fingerprint("", []string{"TEST|go|a", "TEST|go|b"})
	tests := []struct {
		name  string
		scope string
		keys  []string
		same  bool
	}{
		{"order does not matter", "", []string{"TEST|go|b", "TEST|go|a"}, true},
		{"a fixed failure changes it", "", []string{"TEST|go|a"}, false},
		{"multiplicity counts", "", []string{"TEST|go|a", "TEST|go|b", "TEST|go|b#2"}, false},
		{"the scope counts", "tests", []string{"TEST|go|a", "TEST|go|b"}, false},
	}
	for _, tt := range tests {
		if got := Fingerprint(tt.scope, tt.keys); (got == a) != tt.same {
			t.Errorf("%s: %s vs %s", tt.name, got, a)
		}
	}
	if len(a) != 64 || Fingerprint("", nil) != "" {
		t.Errorf("Fingerprint = %q; of nothing %q", a, Fingerprint("", nil))
	}
	// The stored form: sha256 over "fp/v1", the scope and the sorted keys. State
	// files keep gate fingerprints in this form; changing it needs a new version.
	if got := Fingerprint("tests", []string{"TEST|go|a"}); got != "f39ab56813c9481ef7c3ed81ae4ea853c2b36a11f5a7242392b6f93638ff4ec3" {
		t.Errorf("the stored form changed: %s", got)
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
					deltas[name] = Compare([][]string{keys[:1], keys[:1]}, keys)
				}
			}
			got := Render(results, deltas, RenderOptions{})
			if n := len([]rune(got)); n > DefaultMaxLength {
				t.Errorf("feedback is %d runes, over %d", n, DefaultMaxLength)
			}
			renderGolden(t, "render_"+s.name+".golden", got)
		})
	}
}

// renderGolden compares feedback with testdata/NAME (rewritten with -update).
func renderGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
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
}

// A gate that ran out of its time fails like any gate: what its parser read
// counts, and one more finding says it timed out, with its last lines, keyed
// on the gate and its limit so that the same hang in the baseline and an
// iteration is the same failure.
func TestTimedOut(t *testing.T) {
	t.Parallel()
	g := Gate{Name: "tests", Command: "go test ./...", Required: true}
	test := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestAdd", Message: "want 2", Severity: evidence.SeverityError}
	r := TimedOut(g, 10*time.Minute, Report{Tail: "=== RUN TestA\n=== RUN TestDeadlock\n", Findings: []evidence.Finding{test}}, nil)
	if r.Passed || r.Infra || r.TimedOut != 10*time.Minute || len(r.Findings) != 2 {
		t.Fatalf("TimedOut: %+v", r)
	}
	to := r.Findings[1]
	if want := "gate tests timed out after 10m0s; its last lines: === RUN TestA"; !strings.HasPrefix(to.Message, want) || !strings.Contains(to.Message, "TestDeadlock") {
		t.Errorf("message %q, want it to start %q and end with the last line", to.Message, want)
	}
	if to.Key != "GATE|tests|timeout=10m0s" || Label(to.Key) != "gate tests (timed out after 10m0s)" {
		t.Errorf("key %q, label %q", to.Key, Label(to.Key))
	}
	// The same hang as the baseline's is never the baseline's: it hides what
	// the gate had still to run, even for a gate that tolerates the baseline.
	for _, tolerate := range []bool{false, true} {
		g := g
		g.TolerateBaseline = tolerate
		again := TimedOut(g, 10*time.Minute, Report{Tail: "=== RUN TestOther\n"}, &r)
		if len(again.Findings) != 1 || len(again.Preexisting) != 0 || again.Passed {
			t.Errorf("the same hang as the baseline's (tolerate %v): passed %v, findings %v, preexisting %v", tolerate, again.Passed, again.Findings, again.Preexisting)
		}
	}
	if silent := TimedOut(g, time.Second, Report{}, nil); !strings.HasSuffix(silent.Findings[0].Message, "timed out after 1s with no output") {
		t.Errorf("silent: %q", silent.Findings[0].Message)
	}
}
