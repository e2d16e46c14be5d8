package plan

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/testenv"
)

func TestShellPrograms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want []string
	}{
		// Command substitutions, in assignments and arguments: their programs run.
		{"n=$(cat f | wc -l); test $n -ge 5", []string{"cat", "wc"}},
		{"A=$(ls x | head -1)", []string{"ls", "head"}},
		{`x="$(cat f | wc -l)"`, []string{"cat", "wc"}},
		{"test -z \"`git status --porcelain`\"", []string{"git"}},
		{"echo $(date +%s) > stamp", []string{"date"}},
		{"cat <<EOF\n$(uname -a)\nEOF", []string{"uname", "cat"}},
		{"export V=$(go env GOPATH)", []string{"go"}},
		{"declare -x PATH=/opt/bin; mytool", nil},
		{"readonly PATH; mytool", nil},
		// Pipelines, lists, subshells, blocks, redirections, assignments.
		{"gotest -json ./... 2>&1", []string{"gotest"}},
		{"cd sub && go test ./... 2>&1 | tee x.log", []string{"go", "tee"}},
		{"GOFLAGS=-mod=mod go vet ./... ; golangci-lint run", []string{"go", "golangci-lint"}},
		{"go test ./... &> out.txt || true", []string{"go"}},
		{"(cd a && make) ; { npm test; }", []string{"make", "npm"}},
		{"time go test ./...", []string{"go"}},
		{"exec gotestsum ./...", []string{"gotestsum"}},
		{"command make -k", []string{"make"}},
		{`"go" test ./...`, []string{"go"}},
		{"X=1 Y=2 pytest -q", []string{"pytest"}},
		// Builtins and keywords are not programs.
		{"test -f go.mod && echo ok", nil},
		{"[ -d vendor ]", nil},
		{"true; :; printf 'x\\n'; pwd", nil},
		// Only what surely runs: a condition, a fallback, a branch, a loop
		// body, after a program that decides (&&, set -e), after a possible exit.
		{"go vet ./... && golangci-lint run", []string{"go"}},
		{"gotestsum ./... || go test ./...", nil},
		{"if true; then make; fi", nil},
		{"if cargo --version; then cargo test; fi", nil},
		{"while false; do make; done", nil},
		{"for f in $(ls *.go); do gofmt -l $f; done", []string{"ls"}},
		{"case $x in a) make;; esac", nil},
		{"! grep -q TODO main.go", nil},
		{"set -e; go vet ./...; golangci-lint run", []string{"go"}},
		{"set -eu; cd sub; make test", []string{"make"}},
		{"[ -f go.mod ] || exit 0; go test ./...", nil},
		{"go build ./... ; exit 0; make", []string{"go"}},
		// Names the line asks for or defines.
		{"command -v golangci-lint >/dev/null && golangci-lint run", nil},
		{"command -v golangci-lint >/dev/null; golangci-lint run", nil},
		{"which shellcheck && shellcheck *.sh; go test", []string{"which", "go"}},
		{"f() { go test; }; f", nil},
		{"lint() { golangci-lint run; }; lint; go test ./...", []string{"go"}},
		{"g() { exit 0; }; g; make", nil},
		// After what may install programs, nothing is sure to be missing.
		{"go install golang.org/x/tools/cmd/goimports@latest; goimports -l .", []string{"go"}},
		{"pip install ruff; ruff check", []string{"pip"}},
		{"npm i -g eslint; eslint .", []string{"npm"}},
		{"curl -sSfL https://example.com/install.sh | sh -s -- -b bin; golangci-lint run", []string{"curl", "sh"}},
		// What cannot be known: PATH changed, a file sourced, eval, an alias,
		// a path, a name from a variable, a line the shell cannot parse.
		{"export PATH=$PATH:./bin; mytool", nil},
		{"PATH=./bin:$PATH mytool; make", []string{"make"}},
		{"PATH=./bin:$PATH; mytool", nil},
		{". ./env.sh; mytool", nil},
		{"eval \"$(direnv export bash)\"; mytool", nil},
		{"alias t=gotest; t", nil},
		{"./check.sh && bin/lint", nil},
		{"L=nosuchlinter; $L run ./...", nil},
		{"${GO:-go} test", nil},
		{"echo 'unterminated", nil},
		{"if then fi", nil},
		// bash syntax the POSIX grammar refuses is read with bash's.
		{"go test ./... &> out.txt", []string{"go"}},
		{"files=(a b); shellcheck \"${files[@]}\"", []string{"shellcheck"}},
	}
	for _, tt := range tests {
		if got := ShellPrograms(tt.line); !slices.Equal(got, tt.want) {
			t.Errorf("ShellPrograms(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// shellAccepts reports whether sh (or bash, for bash) parses line without
// running it.
func shellAccepts(t *testing.T, shell, line string) bool {
	t.Helper()
	cmd := exec.Command(shell, "-n") // the script on stdin: "sh -n -c +" reads + as an option
	cmd.Stdin = strings.NewReader(line)
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%s -n: %v", shell, err)
	}
	return err == nil
}

// FuzzShellPrograms reads any line against the shells themselves: what it names
// is a plain program name written in the line, and a line it names programs of
// is one the shell parses (sh -n; bash -n where only bash's grammar reads it).
func FuzzShellPrograms(f *testing.F) {
	sh := testenv.NeedTool(f, "sh")
	bash := testenv.NeedTool(f, "bash")
	for _, s := range []string{
		"go test ./... 2>&1 | tee x", "a=1 b && c; d | e", "f() { x; }", "", "n=$(cat f | wc -l); test $n -ge 5",
		"x=\"$(cat f | wc -l)\"", "if a; then b; fi", "for i in $(seq 3); do echo $i; done", "a &> b", "(a) | { b; }",
		"case x in y) z;; esac", "a <<E\n$(b)\nE", "! a || b", "`a` b", "a=(1 2); b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsRune(line, 0) {
			return // not a line a configuration can hold
		}
		names := ShellPrograms(line)
		unquoted := strings.NewReplacer(`"`, "", "'", "").Replace(line)
		for _, p := range names {
			if !plainName(p) || shellWords[p] || !strings.Contains(unquoted, p) {
				t.Fatalf("ShellPrograms(%q) names %q, not a plain program name of the line", line, p)
			}
		}
		if len(names) > 0 && !shellAccepts(t, sh, line) && !shellAccepts(t, bash, line) {
			t.Fatalf("ShellPrograms(%q) = %q, but neither sh -n nor bash -n parses the line", line, names)
		}
	})
}

// gen writes shell lines from a small grammar, choosing by the fuzzer's bytes,
// and knows which programs of the line surely run: the exact answer
// ShellPrograms must give.
type gen struct {
	data []byte
	n    int // programs named so far (each name is new: prog1, prog2, …)
	want []string
}

func (g *gen) pick(k int) int {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return int(b) % k
}

// list writes statements separated by ";" or newlines; sure says whether the
// list surely runs.
func (g *gen) list(depth int, sure bool) string {
	parts := []string{g.stmt(depth, sure)}
	for g.pick(3) == 0 && len(parts) < 4 {
		parts = append(parts, g.stmt(depth, sure))
	}
	return strings.Join(parts, []string{"; ", "\n"}[g.pick(2)])
}

// stmt writes one statement; undeciding reports whether it runs only builtins
// that do not decide what follows.
func (g *gen) stmt(depth int, sure bool) string {
	s, _ := g.stmtU(depth, sure)
	return s
}

func (g *gen) stmtU(depth int, sure bool) (string, bool) {
	if depth <= 0 {
		return g.simple(sure)
	}
	switch g.pick(12) {
	case 0: // a pipeline: every part starts
		a, _ := g.operand(depth-1, sure)
		b, _ := g.simple(sure)
		return a + " | " + b, false
	case 1: // A && B: B runs when A succeeds
		a, au := g.operand(depth-1, sure)
		b, bu := g.operand(depth-1, sure && au)
		return a + " && " + b, au && bu
	case 2: // A || B: A's failure handled unless B is a builtin that always succeeds
		if g.pick(2) == 0 {
			a, _ := g.operand(depth-1, sure)
			return a + " || true", false
		}
		b, bu := g.operand(depth-1, false)
		a, _ := g.operand(depth-1, sure && bu) // "A || cd x" still runs A
		return a + " || " + b, false
	case 3:
		return "( " + g.list(depth-1, sure) + " )", false
	case 4:
		return "{ " + g.list(depth-1, sure) + "; }", false
	case 5:
		return "if " + g.list(depth-1, false) + "; then " + g.list(depth-1, false) + "; fi", false
	case 6:
		return "for x in $( " + g.list(depth-1, sure) + " ); do " + g.list(depth-1, false) + "; done", false
	case 7:
		return "V=$( " + g.list(depth-1, sure) + " )", true
	case 8:
		return `V="$( ` + g.list(depth-1, sure) + ` )"`, true
	case 9:
		a, _ := g.operand(depth-1, false)
		return "! " + a, false
	case 10:
		a, _ := g.simple(sure)
		return "{ echo \"$( " + g.list(depth-1, sure) + " )\" >/dev/null; " + a + "; }", false
	default:
		return g.simple(sure)
	}
}

// operand writes a simple command, or a statement in braces (the operand of
// |, && or ||, whose precedence the braces keep).
func (g *gen) operand(depth int, sure bool) (string, bool) {
	if depth <= 0 || g.pick(2) == 0 {
		return g.simple(sure)
	}
	s, u := g.stmtU(depth, sure)
	return "{ " + s + "; }", u
}

// simple writes a simple command: a program (with assignments, arguments and
// redirections) or a builtin.
func (g *gen) simple(sure bool) (string, bool) {
	switch g.pick(6) {
	case 0:
		return []string{"cd .", "echo hi", ": x", "export V=1", "true", "V=1"}[g.pick(6)], true
	case 1:
		return []string{"test -f x", "[ -d y ]", "false"}[g.pick(3)], false
	}
	g.n++
	name := fmt.Sprintf("prog%d", g.n)
	if sure {
		g.want = append(g.want, name)
	}
	pre := []string{"", "A=1 ", "A=1 B=2 "}[g.pick(3)]
	post := []string{"", " -v ./...", " 2>&1", " >out.log", " <in.txt", " 'a b' \"c\""}[g.pick(6)]
	return pre + name + post, false
}

// FuzzShellProgramsGenerated writes lines from a grammar of the constructs
// gates use (substitutions, pipelines, lists, &&, ||, subshells, blocks, if,
// for, !) whose surely started programs are known: sh -n must parse each line,
// and ShellPrograms must name exactly those programs.
func FuzzShellProgramsGenerated(f *testing.F) {
	sh := testenv.NeedTool(f, "sh")
	for _, s := range []string{"", "\x07\x02", "\x01\x01\x03", "\x06\x00\x07", "\x02\x01\x00\x05", "\x09\x0a\x0b\x00\x03\x04\x05"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{data: data}
		line := g.list(3, true)
		if !shellAccepts(t, sh, line) {
			t.Fatalf("the grammar wrote a line sh -n refuses: %q", line)
		}
		got := ShellPrograms(line)
		slices.Sort(got)
		want := slices.Clone(g.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("ShellPrograms(%q) = %q, want %q", line, got, want)
		}
	})
}

// TestShellProgramsCILines reads real `run:` steps of the GitHub Actions
// workflows of well-known projects (testdata/ci_gate_lines.json: ripgrep, ruff,
// the GitHub CLI, golangci-lint, Terraform, fzf, Flask, Prometheus, bat, Tokio,
// Vue; each with the file and commit it comes from). Each is a line bash
// parses, and ShellPrograms names exactly the programs it surely starts
// (checked by hand).
func TestShellProgramsCILines(t *testing.T) {
	t.Parallel()
	bash := testenv.NeedTool(t, "bash")
	b, err := os.ReadFile("testdata/ci_gate_lines.json")
	if err != nil {
		t.Fatal(err)
	}
	var lines []struct {
		Source, Run string
		Want        []string
	}
	if err := json.Unmarshal(b, &lines); err != nil {
		t.Fatal(err)
	}
	if len(lines) < 40 {
		t.Fatalf("%d lines in the table, want at least 40", len(lines))
	}
	for _, l := range lines {
		if !shellAccepts(t, bash, l.Run) {
			t.Errorf("%s: bash -n refuses the line:\n%s", l.Source, l.Run)
		}
		got := ShellPrograms(l.Run)
		if len(got) == 0 {
			got = []string{}
		}
		if !slices.Equal(got, l.Want) {
			t.Errorf("%s:\n%s\nShellPrograms = %q, want %q", l.Source, l.Run, got, l.Want)
		}
	}
}
