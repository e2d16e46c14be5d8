package gate

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/evidence"
)

func sh(line string) []string { return []string{"sh", "-c", line} }

func TestPlanRerun(t *testing.T) {
	t.Parallel()
	goFails := []evidence.Finding{
		{Kind: evidence.KindTest, ID: "csv.TestRead/quoted", Unit: "example.com/csv", Test: "TestRead/quoted"},
		{Kind: evidence.KindTest, ID: "csv.TestRead/lazy", Unit: "example.com/csv", Test: "TestRead/lazy"},
		{Kind: evidence.KindTest, ID: "cmd.TestMain", Unit: "example.com/csv/cmd", Test: "TestWrite"},
		{Kind: evidence.KindCrash, ID: "example.com/csv/x", Unit: "example.com/csv/x"}, // TestMain crashed: no name
	}
	py := []evidence.Finding{
		{Kind: evidence.KindTest, Unit: "tests/test_a.py", Test: "TestA::test_x[1 2]"},
		{Kind: evidence.KindTest, Unit: "tests/test_b.py", Test: "test_y"},
	}
	js := []evidence.Finding{
		{Kind: evidence.KindTest, Unit: "src/a.test.ts", Test: "auth › login (v2) works"},
		{Kind: evidence.KindTest, Unit: "src/b.test.ts", Test: "b"},
	}
	rust := []evidence.Finding{{Kind: evidence.KindTest, Unit: "src/lib.rs", Test: "tests::eq_fails"}, {Kind: evidence.KindTest, Unit: "tests/it.rs", Test: "it_works"}}
	java := []evidence.Finding{
		{Kind: evidence.KindTest, Unit: "com.x.CalcTest", Test: "add(int)[1]"},
		{Kind: evidence.KindTest, Unit: "com.x.CalcTest", Test: "sub"},
		{Kind: evidence.KindTest, Unit: "com.x.AuthTest", Test: "login"},
	}
	node := []evidence.Finding{{Kind: evidence.KindTest, Unit: "test/login.test.js", Test: "login returns token"}}
	prove := []evidence.Finding{{Kind: evidence.KindTest, Unit: "t/basic.t", Test: "adds"}, {Kind: evidence.KindCrash, Unit: "t/dies.t"}}
	tests := []struct {
		name  string
		argv  []string
		fails []evidence.Finding
		want  string // the command, or the error's words
		left  int
	}{
		{"go test -json", sh("go test -json ./..."), goFails,
			"go test -json -count=1 '-run=^(TestRead|TestWrite)$' example.com/csv example.com/csv/cmd", 1},
		{"go test flags kept, -run and -count replaced, -args kept", sh("CGO_ENABLED=0 go test -race -count 3 -run 'Test.*' -tags 'a b' ./... -args -update"), goFails[:1],
			"CGO_ENABLED=0 go test -race -tags 'a b' -count=1 '-run=^(TestRead)$' example.com/csv -args -update", 0},
		{"go test's coverage dropped", sh("go test -json -cover -covermode atomic -coverpkg=./... -coverprofile=c.out ./..."), goFails[:1],
			"go test -json -count=1 '-run=^(TestRead)$' example.com/csv", 0},
		{"an argv gate", []string{"go", "test", "./..."}, goFails[2:3], "go test -count=1 '-run=^(TestWrite)$' example.com/csv/cmd", 0},
		{"the rest of the line kept", sh("cd sub && go test -v ./... 2>&1 | go-junit-report > r.xml; cat r.xml"), goFails[:1],
			"cd sub && go test -v -count=1 '-run=^(TestRead)$' example.com/csv 2>&1 | go-junit-report > r.xml; cat r.xml", 0},
		{"gotestsum", sh("gotestsum --format testname --packages ./... -- -count=1 -timeout 5m"), goFails[:1],
			"gotestsum --format testname -- -timeout 5m -count=1 '-run=^(TestRead)$' example.com/csv", 0},
		{"gotestsum without --", sh("gotestsum --format dots"), goFails[:1],
			"gotestsum --format dots -- -count=1 '-run=^(TestRead)$' example.com/csv", 0},
		{"gotestsum reruns itself", sh("gotestsum --rerun-fails --packages ./..."), goFails, "--rerun-fails has run the failed tests again already", 0},
		{"go tool gotestsum", sh("go tool gotestsum -- ./..."), goFails[:1], "go tool gotestsum -- -count=1 '-run=^(TestRead)$' example.com/csv", 0},
		{"go test of files", sh("go test a_test.go"), goFails, "it names .go files", 0},
		{"pytest", sh("python3 -m pytest -q --tb short -k 'not slow' tests/"), py,
			"python3 -m pytest -q -k 'not slow' --tb=no --assert=plain 'tests/test_a.py::TestA::test_x[1 2]' tests/test_b.py::test_y", 0},
		{"pytest with uv", sh("uv run pytest -x"), py[1:], "uv run pytest -x --tb=no --assert=plain tests/test_b.py::test_y", 0},
		{"pytest --cov takes a value, --no-cov added", sh("pytest --cov src --cov-fail-under=90 tests"), py[1:],
			"pytest --cov src --cov-fail-under=90 --tb=no --assert=plain --no-cov tests/test_b.py::test_y", 0},
		{"pytest's own --assert and --tb=", sh("pytest --assert=rewrite --tb=long -p no:cacheprovider tests"), py[1:],
			"pytest --assert=rewrite -p no:cacheprovider --tb=no tests/test_b.py::test_y", 0},
		{"python runs another module", sh("python -m unittest discover"), py, "runs a Python module other than pytest", 0},
		{"jest", sh("npx jest --ci --json --outputFile=out.json -t old src/"), js,
			`npx jest --ci --json --outputFile=out.json --coverage=false --runTestsByPath -t '^(auth login \(v2\) works|b)$' src/a.test.ts src/b.test.ts`, 0},
		{"jest's coverage off", sh("jest --coverage --collectCoverage=true --coverageReporters text"), js[1:],
			`jest --coverageReporters text --coverage=false --runTestsByPath -t '^(b)$' src/b.test.ts`, 0},
		{"jest --watch", sh("jest --watch"), js, "--watch picks its own tests", 0},
		{"vitest run", sh("./node_modules/.bin/vitest run --reporter=json vtest"), js,
			`./node_modules/.bin/vitest run --reporter=json --coverage.enabled=false -t '^(auth login \(v2\) works|b)$' src/a.test.ts src/b.test.ts`, 0},
		{"vitest's coverage off", sh("vitest --coverage --coverage.provider=v8"), js[1:],
			`vitest --coverage.provider=v8 --coverage.enabled=false -t '^(b)$' src/b.test.ts`, 0},
		{"vitest related", sh("vitest related src/a.ts"), js, "vitest related", 0},
		{"cargo test", sh("cargo test --no-fail-fast -p core add -- --test-threads 1 --exact other"), rust,
			"cargo test --no-fail-fast -p core -- --test-threads 1 --exact it_works tests::eq_fails", 0},
		{"maven", sh("mvn -q -Dtest=Old test; cat target/surefire-reports/*.xml"), java,
			"mvn -q test '-Dtest=com.x.AuthTest#login,com.x.CalcTest#add+sub' -Dsurefire.failIfNoSpecifiedTests=false; cat target/surefire-reports/*.xml", 0},
		{"maven, JUnit 4 parameterized", sh("mvn test"), []evidence.Finding{{Kind: evidence.KindTest, Unit: "calc.AddTableTest", Test: "add[20+1]"}, {Kind: evidence.KindTest, Unit: "calc.AddTableTest", Test: "add[1+2]"}},
			"mvn test '-Dtest=calc.AddTableTest#add[*]' -Dsurefire.failIfNoSpecifiedTests=false", 0},
		{"gradle", sh("./gradlew --tests Old test --info"), java,
			"./gradlew test --tests com.x.AuthTest.login --tests com.x.CalcTest.add --tests com.x.CalcTest.sub --info", 0},
		{"gradle, JUnit 4 parameterized", sh("gradle test"), []evidence.Finding{{Kind: evidence.KindTest, Unit: "calc.AddTableTest", Test: "add[20+1]"}, {Kind: evidence.KindTest, Unit: "calc.AddTableTest", Test: "add[1+2]"}},
			"gradle test --tests 'calc.AddTableTest.add[*]'", 0},
		{"gradle check", sh("gradle check"), java, "runs no task named test", 0},
		{"node --test", sh("node --test --test-reporter tap test/"), node,
			"node --test --test-reporter tap '--test-name-pattern=(^| )(login returns token)$' test/login.test.js", 0},
		{"prove", sh("prove -lv t/"), prove, "prove -lv t/basic.t t/dies.t", 0},
		{"npm test is a wrapper", sh("npm test"), js, "npm test is not a test runner agentloop can rewrite", 0},
		{"make is a wrapper", sh("make check"), goFails, "make check is not a test runner", 0},
		{"a script", sh("./ci/test.sh --fast"), goFails, "./ci/test.sh --fast is not a test runner", 0},
		{"a shell loop", sh("for d in a b; do go test ./$d; done"), goFails, "it is a shell script (for)", 0},
		{"command substitution", sh("go test $(go list ./...)"), goFails, "command substitution", 0},
		{"two runners", sh("go test ./... && pytest"), goFails, "runs 2 test commands", 0},
		{"a variable argument", sh("go test $PKGS"), goFails, "shell variable", 0},
		{"nothing selectable", sh("go test ./..."), goFails[3:], "the output names no failed test go test can run by name", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := PlanRerun(tt.argv, tt.fails)
			if err != nil {
				if !errors.Is(err, ErrNoSelector) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("PlanRerun: %v, want %q", err, tt.want)
				}
				return
			}
			if p.Command != tt.want {
				t.Errorf("command\n got %s\nwant %s", p.Command, tt.want)
			}
			if len(p.Left) != tt.left || len(p.Selected)+len(p.Left) != len(tt.fails) {
				t.Errorf("selected %d, left %d; want left %d", len(p.Selected), len(p.Left), tt.left)
			}
			if tt.argv[0] == "sh" && (len(p.Argv) != 3 || p.Argv[2] != p.Command) {
				t.Errorf("argv %q does not run the command", p.Argv)
			}
		})
	}
}

// TestPlanRerunRunsInAShell: what a rewritten shell line means to sh is the
// words agentloop put in it.
func TestShQuoteRoundTrip(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"plain", "a b", "it's", `^(a|b)$`, "x[1 2]", `back\slash`, "", "日本"} {
		cmds, err := shParse("echo " + shQuote(s))
		if err != nil || len(cmds) != 1 || len(cmds[0].words) != 2 {
			t.Fatalf("%q: %v %+v", s, err, cmds)
		}
		if got := cmds[0].words[1].lit; got != s {
			t.Errorf("%q came back as %q", s, got)
		}
	}
}

func TestCanRerun(t *testing.T) {
	t.Parallel()
	if err := CanRerun(sh("go test -json ./...")); err != nil {
		t.Errorf("go test: %v", err)
	}
	if err := CanRerun(sh("npm test")); !errors.Is(err, ErrNoSelector) {
		t.Errorf("npm test: %v, want ErrNoSelector", err)
	}
	for cmd, warn := range map[string]bool{"npm test": true, "make check-tests": true, "./run-specs.sh": true, "go test ./...": false,
		"golangci-lint run": false, "true": false, "test -f fixed.txt": false, "sh -c 'exit 1'": false} {
		if err := RerunWarning(sh(cmd)); (err != nil) != warn {
			t.Errorf("RerunWarning(%q) = %v, want a warning: %v", cmd, err, warn)
		}
	}
}

// FuzzPlanRerun: whatever the gate's command, planning never panics, and a
// plan's shell line parses again with the selected tests in it.
func FuzzPlanRerun(f *testing.F) {
	for _, s := range []string{"go test ./...", "cd a && gotestsum -- -v ./... 2>&1 | tee x", "pytest 'a b' \"c$d\"", "jest --json -t x",
		"cargo test -- --exact", "mvn -Dtest=A test", "echo 'unclosed", "a \\\n b", "x=1 y=2 go test -run=. ./... > out 2>&1"} {
		f.Add(s, "pkg", "TestA/sub one")
	}
	f.Fuzz(func(t *testing.T, line, unit, test string) {
		fails := []evidence.Finding{{Kind: evidence.KindTest, Unit: unit, Test: test}}
		p, err := PlanRerun(sh(line), fails)
		if err != nil {
			return
		}
		if _, err := shParse(p.Command); err != nil {
			t.Fatalf("the rewritten line %q does not parse: %v", p.Command, err)
		}
	})
}
