package diff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewDeps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		diff string
		want []string
	}{
		{"go.mod block, bump and indirect", mk(fd{path: "go.mod", lines: []string{" require (", "-\tgithub.com/a/b v1.0.0", "+\tgithub.com/a/b v1.1.0", "+\tgithub.com/new/dep v0.3.0", "+\tgolang.org/x/sync v0.1.0 // indirect", " )"}}),
			[]string{"github.com/new/dep (go.mod)"}},
		{"go.mod single require and replace", mk(fd{path: "go.mod", lines: []string{" go 1.22", "+require example.com/one v1.2.3", "+replace example.com/x => ../x", "+toolchain go1.23.0"}}),
			[]string{"example.com/one (go.mod)"}},
		{"go.mod block without its header in the hunk", mk(fd{path: "sub/go.mod", lines: []string{" \tgithub.com/a/b v1.0.0", "+\tgithub.com/c/d v1.0.0"}}),
			[]string{"github.com/c/d (sub/go.mod)"}},
		{"package.json", mk(fd{path: "package.json", lines: []string{"   \"scripts\": {", "+    \"lint\": \"eslint .\",", "   },", "   \"dependencies\": {", "-    \"react\": \"^18.2.0\"", "+    \"react\": \"^18.3.0\",", "+    \"left-pad\": \"^1.3.0\"", "   },", "   \"engines\": {", "+    \"node\": \">=20\""}}),
			[]string{"left-pad (package.json)"}},
		{"package.json without section header", mk(fd{path: "web/package.json", lines: []string{"     \"a\": \"1.0.0\",", "+    \"@scope/pkg\": \"~2.0.0\",", "+    \"version\": \"2.0.0\""}}),
			[]string{"@scope/pkg (web/package.json)"}},
		{"requirements", mk(fd{path: "requirements-dev.txt", lines: []string{"+# tools", "+Requests[security]>=2.31", "+-r base.txt", "-flask==2.0", "+Flask==3.0", "+pytest"}}),
			[]string{"pytest (requirements-dev.txt)", "requests (requirements-dev.txt)"}},
		{"Cargo.toml", mk(fd{path: "Cargo.toml", lines: []string{" [package]", "+version = \"0.2.0\"", " [dependencies]", "+serde = { version = \"1\", features = [\"derive\"] }", "+anyhow = \"1.0\"", "+[dev-dependencies.proptest]"}}),
			[]string{"anyhow (Cargo.toml)", "proptest (Cargo.toml)", "serde (Cargo.toml)"}},
		{"pyproject", mk(fd{path: "pyproject.toml", lines: []string{" dependencies = [", "+  \"httpx>=0.27\",", "   \"rich\",", " ]", " [tool.poetry.dependencies]", "+python = \"^3.11\"", "+pydantic = \"^2\""}}),
			[]string{"httpx (pyproject.toml)", "pydantic (pyproject.toml)"}},
		{"lockfiles and other files ignored", mk(fd{path: "package-lock.json", lines: []string{"+    \"x\": \"1.0.0\""}}, fd{path: "a.go", lines: []string{"+require x v1.0.0"}}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Analyze(tt.diff, Options{}).NewDeps); diff != "" {
				t.Errorf("NewDeps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExportedChanged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		diff string
		want []string
	}{
		{"funcs, methods and types", mk(fd{path: "api/client.go", lines: []string{
			"-func New(addr string) *Client {", "+func New(addr string, opts ...Option) *Client {",
			"+func (c *Client) Close() error {", "+func (c *client) Hidden() {}", "+func helper() {}",
			"-type Option int", "+type Option func(*Client)", "+var ErrClosed = errors.New(\"closed\")", "-const Version = \"1\"",
		}}), []string{"api/client.go: const Version removed", "api/client.go: func New changed", "api/client.go: method Client.Close added",
			"api/client.go: type Option changed", "api/client.go: var ErrClosed added"}},
		{"blocks", mk(fd{path: "pkg/consts.go", lines: []string{" const (", "+\tModeFast Mode = iota", "+\tmodeSlow", " )", "@@", " type (", "-\tID string", " )"}}),
			[]string{"pkg/consts.go: const ModeFast added", "pkg/consts.go: type ID removed"}},
		{"moved or reformatted is no change", mk(fd{path: "p.go", lines: []string{"-func  Do(x int) {", "+func Do(x int) {"}}), nil},
		{"a one-line function's body is not its API", mk(fd{path: "calc.go", lines: []string{
			"-func Add(a, b int) int { return a - b }", "+func Add(a, b int) int { return a + b }",
			"-func (c *Calc) Do(x interface{}) struct{ A int } { return struct{ A int }{1} }", "+func (c *Calc) Do(x interface{}) struct{ A int } { return struct{ A int }{2} }",
			"-func Sub(a, b int) int { return a - b }", "+func Sub(a, b int64) int64 { return a - b }",
			"-func Typ(x struct{ A int }) {}", "+func Typ(x struct{ B int }) {}",
		}}), []string{"calc.go: func Sub changed", "calc.go: func Typ changed"}},
		{"generic receiver", mk(fd{path: "set.go", lines: []string{"+func (s *Set[T]) Add(v T) {"}}), []string{"set.go: method Set.Add added"}},
		{"test, internal and non-Go files ignored", mk(fd{path: "a_test.go", lines: []string{"+func TestX(t *testing.T) {}"}},
			fd{path: "internal/x/x.go", lines: []string{"+func X() {}"}}, fd{path: "a.py", lines: []string{"+func X() {}"}}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Analyze(tt.diff, Options{}).ExportedChanged); diff != "" {
				t.Errorf("ExportedChanged (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSecrets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want bool
	}{
		{"-----BEGIN RSA PRIVATE KEY-----", true},
		{"-----BEGIN OPENSSH PRIVATE KEY-----", true},
		{"aws_key = \"AKIAIOSFODNN7EXAMPLF\"", true},
		{"token: ghp_abcdefghijklmnopqrstuvwxyz0123456789", true},
		{"SLACK=xoxb-123456789012-1234567890123-Zq8vN2xLr5Tb9WkMd3HfYp7G", true},
		{"OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", true},
		{"key := \"sk-ant-api03-Zq8vN2xLr5Tb9WkMd3HfYp7Gc1Js6Ea4Ru0Xo2Vn8Qi5Lt3Bw9Km7Pz1Dy6Hg4Ce0Fa2Ns5Jr8Ux3Ml7Ov1Ib9Tq6Wd4Sk2Ye8Zh0Gf5Pn3Rc7AA\"", true},
		{"password = \"k9#Lq2!vR7zX@p4W\"", true},
		{`DB_SECRET: "Zx8vQ2mN7pL4kR9t"`, true},
		{"-----BEGIN PUBLIC KEY-----", false},
		{"password = os.Getenv(\"DB_PASSWORD\")", false},
		{"token := cfg.Auth.Token", false},
		{"password = \"changeme-changeme\"", false},
		{"secret = \"${VAULT_SECRET}\"", false},
		{"token = \"aaaaaaaaaaaaaaaa\"", false},
		{"// tokenizer settings = default_value_here", false},
		{"author: Jq7-xP2k-Lm9w-Zr4t", false},
		{"auth_token: Jq7xP2kLm9wZr4tV", true},
	}
	for _, tt := range tests {
		if got := hasSecret(tt.line); got != tt.want {
			t.Errorf("hasSecret(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
	d := mk(fd{path: "config.yaml", lines: []string{"+aws: AKIAIOSFODNN7EXAMPLF", "-old: AKIAIOSFODNN7EXAMPLG", " ctx: AKIAIOSFODNN7EXAMPLH", "+name: x"}})
	facts := Analyze(d, Options{})
	if facts.SecretsFound != 1 {
		t.Errorf("SecretsFound = %d, want 1 (added lines only)", facts.SecretsFound)
	}
	for _, f := range facts.Tamper {
		if strings.Contains(f.Message, "AKIA") {
			t.Errorf("a finding stores the secret: %q", f.Message)
		}
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"auth/**", "auth/token.go", true},
		{"auth/**", "auth/deep/x/y.go", true},
		{"auth/**", "internal/auth/x.go", false},
		{"**/auth/**", "internal/auth/x.go", true},
		{"auth", "internal/auth/x.go", true},
		{"/auth", "internal/auth/x.go", false},
		{".github/**", ".github/workflows/ci.yml", true},
		{".github/", ".github/workflows/ci.yml", true},
		{".github/", ".github", false},
		{"go.mod", "go.mod", true},
		{"go.mod", "tools/go.mod", true},
		{"/go.mod", "tools/go.mod", false},
		{"*.pem", "certs/server.pem", true},
		{"internal/**/*.go", "internal/a.go", true},
		{"internal/**/*.go", "internal/x/y/a.go", true},
		{"internal/**/*.go", "internal/x/y/a.md", false},
		{"internal/*.go", "internal/x/a.go", false},
		{"src/**/test/**", "src/a/b/test/c/d.ts", true},
		{"**", "anything/at/all", true},
		{"migrations/*.sql", "./migrations/001.sql", true},
		{"[", "x", false},
		{"", "x", false},
	}
	for _, tt := range tests {
		if got := Glob(tt.pattern, tt.path); got != tt.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`diff --git "a/sp\303\251cial \"q\".go" "b/sp\303\251cial \"q\".go"`,
		"index 1..2 100644",
		`--- "a/sp\303\251cial \"q\".go"`,
		`+++ "b/sp\303\251cial \"q\".go"`,
		"@@ -1,2 +1,2 @@",
		"--- this removed line starts with dashes",
		"+++ and this added one with pluses",
		`\ No newline at end of file`,
		"diff --git a/with space.txt b/with space.txt",
		"Binary files a/with space.txt and b/with space.txt differ",
		"--- plain/old.c\t2024-01-01 10:00:00",
		"+++ plain/new.c\t2024-01-02 10:00:00",
		"@@ -3 +3,2 @@",
		"-a",
		"+b",
		"+c",
		"garbage @@ -x +y",
	}, "\r\n")
	files := parse(in)
	type got struct {
		Old, New string
		Binary   bool
		Ops      string
		Ns       []int
	}
	var g []got
	for _, f := range files {
		x := got{Old: f.Old, New: f.New, Binary: f.Binary}
		for _, l := range f.Lines {
			x.Ops += string(l.Op)
			x.Ns = append(x.Ns, l.N)
		}
		g = append(g, x)
	}
	want := []got{
		{Old: `spécial "q".go`, New: `spécial "q".go`, Ops: "-+", Ns: []int{1, 1}},
		{Old: "with space.txt", New: "with space.txt", Binary: true},
		{Old: "plain/old.c", New: "plain/new.c", Ops: "-++", Ns: []int{3, 3, 4}},
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("parse (-want +got):\n%s", diff)
	}
}
