package agent

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/testenv"
)

// The test binary doubles as a fake agent: with AGENT_HELPER_ACTIONS set it
// runs the actions (separated by ';') instead of the tests.
func TestMain(m *testing.M) {
	if acts := os.Getenv("AGENT_HELPER_ACTIONS"); acts != "" {
		os.Exit(helper(strings.Split(acts, ";")))
	}
	os.Exit(m.Run())
}

func helper(actions []string) int {
	for _, a := range actions {
		verb, arg, _ := strings.Cut(a, ":")
		switch verb {
		case "printfile":
			b, err := os.ReadFile(arg)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 99
			}
			os.Stdout.Write(b)
		case "stderr":
			fmt.Fprintln(os.Stderr, arg)
		case "stdin-to":
			b, _ := io.ReadAll(os.Stdin)
			_ = os.WriteFile(arg, b, 0o600)
		case "args-to":
			_ = os.WriteFile(arg, []byte(strings.Join(os.Args[1:], "\n")), 0o600)
		case "env-to":
			_ = os.WriteFile(arg, []byte(os.Getenv("AGENT_TEST_FOO")+","+os.Getenv("AGENT_TEST_BAR")), 0o600)
		case "echo-stdin":
			_, _ = io.Copy(os.Stdout, os.Stdin)
		case "print":
			fmt.Println(arg)
		case "noline": // N bytes without a newline, then "THE END"
			n, _ := strconv.Atoi(arg)
			chunk := []byte(strings.Repeat("x", 1<<16))
			for ; n > 0; n -= len(chunk) {
				os.Stdout.Write(chunk[:min(n, len(chunk))])
			}
			fmt.Print("THE END")
		case "sleep":
			d, _ := time.ParseDuration(arg)
			time.Sleep(d)
		case "spin": // assistant messages of 1000 tokens each, until killed
			for i := 0; ; i++ {
				fmt.Printf(`{"type":"assistant","message":{"id":"m%d","usage":{"input_tokens":1000,"output_tokens":0}},"session_id":"spin"}`+"\n", i)
				time.Sleep(5 * time.Millisecond)
			}
		case "exit":
			n, _ := strconv.Atoi(arg)
			return n
		}
	}
	return 0
}

// fakePreset is a preset that runs this test binary with the given actions.
func fakePreset(t *testing.T, format, via string, actions ...string) (Preset, map[string]string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Preset{Name: "fake", Binary: exe, PromptVia: via, Format: format},
		map[string]string{"AGENT_HELPER_ACTIONS": strings.Join(actions, ";"), "GORACE": testenv.GORACE()}
}

func fake(name string) string {
	abs, _ := filepath.Abs(filepath.Join("testdata", "fake", name))
	return abs
}

func TestRunnerClaudeOK(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdinFile := filepath.Join(dir, "stdin.txt")
	p, env := fakePreset(t, FormatClaudeStream, PromptStdin, "stdin-to:"+stdinFile, "printfile:"+fake("claude-ok.jsonl"))
	var echo strings.Builder
	r := &Runner{}
	res, err := r.Run(t.Context(), Request{Preset: p, Prompt: "fix it", Dir: dir, Env: env,
		LogPath: filepath.Join(dir, "agent.log"), Echo: &echo, Timeout: time.Minute, CompletionMarker: "<promise>DONE</promise>"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed() || !res.Terminal || !res.Completed || res.RateLimited || res.Transient {
		t.Errorf("result flags: %+v", res)
	}
	u := res.Usage
	if u.InputTokens != 1500 || u.OutputTokens != 155 || u.CacheReadTokens != 4000 || u.CacheWriteTokens != 4500 ||
		u.CostUSD != 0.0421 || !u.CostKnown || u.CostEstimated || u.SessionID != "fake-claude-0001" || u.Turns != 3 {
		t.Errorf("usage = %+v", u)
	}
	if got, _ := os.ReadFile(stdinFile); string(got) != "fix it" {
		t.Errorf("the agent read %q on stdin, want the prompt", got)
	}
	st, err := os.Stat(filepath.Join(dir, "agent.log"))
	if err != nil || runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 || st.Size() == 0 { // Windows keeps no mode bits
		t.Errorf("agent.log: %v %v", st, err)
	}
	if want := "agent: I will run the tests first.\ntool Bash: go test ./...\n"; !strings.HasPrefix(echo.String(), want) || strings.Contains(echo.String(), `"type"`) {
		t.Errorf("echo = %q, want it to tell the stream as lines starting %q", echo.String(), want)
	}
	if !strings.Contains(res.Tail, `"total_cost_usd"`) {
		t.Errorf("tail misses the output")
	}
}

// TestRunnerTextWithoutNewline checks text output that never ends a line: the
// result is its end (what the text parser keeps), and the log keeps its head
// and tail.
func TestRunnerTextWithoutNewline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, env := fakePreset(t, FormatText, PromptStdin, "noline:3000000")
	res, err := (&Runner{LogHead: 1000, LogTail: 1000, MaxLine: 1 << 20}).Run(t.Context(), Request{Preset: p, Prompt: "x", Dir: dir, Env: env,
		LogPath: filepath.Join(dir, "agent.log"), Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed() || res.OutputBytes != 3000007 || !strings.HasSuffix(res.Result, "xxxTHE END") || len(res.Result) < textTail-1 {
		t.Errorf("outcome %s, %d bytes, result of %d bytes ending %q", res.Outcome, res.OutputBytes, len(res.Result), res.Result[max(len(res.Result)-20, 0):])
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "agent.log")); !strings.HasSuffix(string(log), "THE END") || len(log) > 2100 {
		t.Errorf("agent.log: %d bytes ending %q", len(log), log[max(len(log)-20, 0):])
	}
}

func TestRunnerRateLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, env := fakePreset(t, FormatClaudeStream, PromptStdin, "printfile:"+fake("claude-ratelimit.jsonl"), "exit:1")
	res, err := (&Runner{}).Run(t.Context(), Request{Preset: p, Prompt: "x", Dir: dir, Env: env, LogPath: filepath.Join(dir, "agent.log")})
	if err != nil {
		t.Fatal(err)
	}
	if !res.RateLimited || !res.ResetAt.Equal(time.Unix(1893456000, 0)) || res.ExitCode != 1 || res.Transient {
		t.Errorf("result = %+v", res)
	}
}

func TestRunnerCodexEstimatedCost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, env := fakePreset(t, FormatCodex, PromptStdin, "printfile:"+fake("codex-ok.jsonl"))
	prices := Prices{Default: Price{Input: 1, Output: 10, CacheRead: 0.1}}
	res, err := (&Runner{Prices: &prices}).Run(t.Context(), Request{Preset: p, Prompt: "x", Dir: dir, Env: env, LogPath: filepath.Join(dir, "agent.log")})
	if err != nil {
		t.Fatal(err)
	}
	// 5000 input × $1 + 800 output × $10 + 15000 cached × $0.1, per million
	want := (5000*1 + 800*10 + 15000*0.1) / 1e6
	if u := res.Usage; !u.CostKnown || !u.CostEstimated || u.CostUSD != want || res.Result != "Fixed Title; go test passes." {
		t.Errorf("usage = %+v (want cost %v), result %q", u, want, res.Result)
	}
}

func TestRunnerPromptFileAndEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	argsFile, envFile := filepath.Join(dir, "args.txt"), filepath.Join(dir, "env.txt")
	p, env := fakePreset(t, FormatText, PromptFile, "args-to:"+argsFile, "env-to:"+envFile, "printfile:"+fake("codex-ok.jsonl"))
	p.PromptFlag = "--message-file"
	p.Env = map[string]string{"AGENT_TEST_FOO": "preset", "AGENT_TEST_BAR": "preset"}
	env["AGENT_TEST_FOO"] = "request"
	res, err := (&Runner{}).Run(t.Context(), Request{Preset: p, Prompt: "the prompt", Dir: dir, Env: env, LogPath: filepath.Join(dir, "agent.log")})
	if err != nil {
		t.Fatal(err)
	}
	args, _ := os.ReadFile(argsFile)
	promptFile := filepath.Join(dir, "agent-prompt.md")
	if string(args) != "--message-file\n"+promptFile {
		t.Errorf("args = %q", args)
	}
	if b, _ := os.ReadFile(promptFile); string(b) != "the prompt" {
		t.Errorf("prompt file = %q", b)
	}
	if b, _ := os.ReadFile(envFile); string(b) != "request,preset" {
		t.Errorf("env = %q, want the request to win over the preset", b)
	}
	if res.Failed() || res.Usage.TokensKnown || res.Usage.CostKnown {
		t.Errorf("text output: %+v", res)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "agent.log")); strings.Contains(string(log), "preset") {
		t.Errorf("the environment leaked into the log")
	}
}

func TestRunnerStartFailed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := Preset{Name: "ghost", Binary: filepath.Join(dir, "no-such-agent"), PromptVia: PromptStdin, Format: FormatText}
	res, err := (&Runner{}).Run(t.Context(), Request{Preset: p, Prompt: "x", Dir: dir, LogPath: filepath.Join(dir, "agent.log")})
	if err != nil || !res.StartFailed || res.Outcome != evidence.OutcomeNotInstalled || !strings.Contains(res.Fix, "install") {
		t.Errorf("Run() = %+v, %v", res, err)
	}
}

func TestRunnerTokenLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, env := fakePreset(t, FormatClaudeStream, PromptStdin, "spin")
	res, err := (&Runner{Grace: time.Second}).Run(t.Context(), Request{Preset: p, Prompt: "x", Dir: dir, Env: env,
		LogPath: filepath.Join(dir, "agent.log"), Timeout: 30 * time.Second, Limits: budget.Limits{MaxTokens: 5000}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Reason, "iteration limit: the agent used 5000 of its tokens limit") || !res.Failed() ||
		res.Usage.InputTokens < 5000 || res.Transient || res.RateLimited {
		t.Errorf("result = %+v", res)
	}
}

func TestRunnerCrashAndTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, env := fakePreset(t, FormatClaudeStream, PromptStdin, "exit:3")
	res, err := (&Runner{}).Run(t.Context(), Request{Preset: p, Prompt: "x", Dir: dir, Env: env, LogPath: filepath.Join(dir, "a.log")})
	if err != nil || res.Transient || res.Outcome != evidence.OutcomeCrashed || res.ExitCode != 3 || res.Reason != "exited 3 before any output" {
		t.Errorf("crash: %+v, %v", res, err)
	}
	p, env = fakePreset(t, FormatClaudeStream, PromptStdin, "stderr:working", "sleep:20s")
	res, err = (&Runner{Grace: 200 * time.Millisecond}).Run(t.Context(), Request{Preset: p, Prompt: "x", Dir: dir, Env: env,
		LogPath: filepath.Join(dir, "b.log"), Timeout: 300 * time.Millisecond})
	if err != nil || !res.TimedOut || res.Transient || !strings.HasPrefix(res.Reason, "timed out") {
		t.Errorf("timeout: %+v, %v", res, err)
	}
}

func TestRunnerPromptTooLongForArg(t *testing.T) {
	t.Parallel()
	p := Preset{Name: "x", Binary: "x", PromptVia: PromptArg, Format: FormatText}
	_, err := (&Runner{}).Run(t.Context(), Request{Preset: p, Prompt: strings.Repeat("a", 200<<10), LogPath: filepath.Join(t.TempDir(), "l")})
	if err == nil || !strings.Contains(err.Error(), "prompt_via: stdin or file") {
		t.Errorf("err = %v", err)
	}
}

// TestRunnerMarkerEcho: a text agent that echoes its prompt (which names the
// marker) has not completed; printing the marker itself on a line does.
func TestRunnerMarkerEcho(t *testing.T) {
	t.Parallel()
	prompt := "Fix the tests. When done, print on a line of its own:\nDONE-42\n"
	for _, tt := range []struct {
		actions []string
		want    bool
	}{
		{[]string{"echo-stdin"}, false},
		{[]string{"echo-stdin", "print:I will not print DONE-42 yet"}, false},
		{[]string{"echo-stdin", "print:  DONE-42"}, true},
	} {
		dir := t.TempDir()
		p, env := fakePreset(t, FormatText, PromptStdin, tt.actions...)
		res, err := (&Runner{}).Run(t.Context(), Request{Preset: p, Prompt: prompt, Dir: dir, Env: env,
			LogPath: filepath.Join(dir, "agent.log"), CompletionMarker: "DONE-42"})
		if err != nil || res.Completed != tt.want {
			t.Errorf("%v: Completed = %v, want %v (err %v)", tt.actions, res.Completed, tt.want, err)
		}
	}
}

// The stderr tail keeps the last bytes written, whatever the sizes of the writes.
func TestRingKeepsTheTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		writes []string
		want   string
	}{
		{[]string{"ab", "cd"}, "abcd"},
		{[]string{"abc", "def"}, "cdef"},
		{[]string{"abcdef"}, "cdef"},
		{[]string{"abcd"}, "abcd"},
		{[]string{"x", "abcdefgh", "yz"}, "ghyz"},
		{nil, ""},
	}
	for _, tt := range tests {
		r := &ring{size: 4}
		for _, w := range tt.writes {
			if n, err := r.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", w, n, err)
			}
		}
		if got := string(r.bytes()); got != tt.want {
			t.Errorf("after %q: tail %q, want %q", tt.writes, got, tt.want)
		}
	}
}

// TestRunnerRetryNotices: Claude Code's api_retry notices are told while the
// agent runs and recorded; a retry of a request its provider rejected as
// unauthorised ends the agent at once (the real CLI would retry ten times over
// minutes) with the authentication outcome and its fix.
func TestRunnerRetryNotices(t *testing.T) {
	t.Parallel()
	real := func(name string) string {
		abs, _ := filepath.Abs(filepath.Join("testdata", "real", name))
		return abs
	}
	qwen := "stderr:Retrying in 60s (attempt 1/10): [API Error: 429 Rate limit reached for requests. Please try again in 1s.]"
	tests := []struct {
		name     string
		actions  []string
		want     evidence.AgentOutcome
		notices  []string
		fastStop bool
	}{
		{"401 ends at the first retry", []string{"printfile:" + firstLines(t, real("claude-2.1.197-401.stdout.jsonl"), 2), "sleep:1m", "exit:1"},
			evidence.OutcomeAuth, []string{"authentication failed, retry 1/10 in 500ms (HTTP 401 authentication_failed)"}, true},
		{"429 once is news, not the outcome", []string{"printfile:" + real("claude-2.1.197-ratelimit-once.stdout.jsonl")},
			evidence.OutcomeSucceeded, []string{"rate limited, retry 1/2 in 1s (HTTP 429 rate_limit)"}, false},
		{"429 always", []string{"printfile:" + real("claude-2.1.197-ratelimit-always.stdout.jsonl"), "exit:1"},
			evidence.OutcomeRateLimited, []string{"rate limited, retry 1/2 in 1s (HTTP 429 rate_limit)", "rate limited, retry 2/2 in 1s (HTTP 429 rate_limit)"}, false},
		{"qwen's retry on stderr", []string{qwen, "printfile:" + real("qwen-0.24.4-success.stdout.jsonl")}, evidence.OutcomeSucceeded,
			[]string{"rate limited, retry 1/10 in 1m0s (HTTP 429 Rate limit reached for requests. Please try again in 1s.)"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			format := FormatClaudeStream
			if strings.HasPrefix(tt.name, "qwen") {
				format = FormatQwenStream
			}
			p, env := fakePreset(t, format, PromptStdin, tt.actions...)
			p.Name, p.Failures = "claude", claudeFailures()
			var notices []string
			start := time.Now()
			res, err := (&Runner{Grace: 100 * time.Millisecond}).Run(t.Context(), Request{Preset: p, Prompt: "x", Dir: dir, Env: env,
				LogPath: filepath.Join(dir, "agent.log"), Timeout: 50 * time.Second,
				OnRetry: func(r Retry) { notices = append(notices, r.String()) }})
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != tt.want {
				t.Errorf("outcome = %s (%s), want %s", res.Outcome, res.Reason, tt.want)
			}
			if tt.fastStop {
				if d := time.Since(start); d > 40*time.Second {
					t.Errorf("the agent ran %s: not ended at its first retry", d)
				}
				if !strings.Contains(res.Reason, "authentication_failed (HTTP 401)") || !strings.Contains(res.Fix, "ANTHROPIC_API_KEY") || res.ExitCode == 0 {
					t.Errorf("result = %+v", res)
				}
			}
			if !slices.Equal(notices, tt.notices) || res.Retries != len(tt.notices) || res.LastRetry != tt.notices[len(tt.notices)-1] {
				t.Errorf("notices %q, recorded %d %q; want %q", notices, res.Retries, res.LastRetry, tt.notices)
			}
		})
	}
}

// firstLines writes the first n lines of a file to a temporary file: a
// transcript cut where the CLI would still be running.
func firstLines(t *testing.T, path string, n int) string {
	t.Helper()
	lines := strings.SplitAfterN(string(readFile(t, path)), "\n", n+1)
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, []byte(strings.Join(lines[:n], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// An agent whose priced usage reaches its cost limit is ended there: the
// limit is "at or past", and the cost is estimated from the tokens when the
// CLI reports none.
func TestRunnerCostLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, env := fakePreset(t, FormatClaudeStream, PromptStdin, "spin")
	dollarPerMessage := &Prices{Default: Price{Input: 1000}} // 1000 tokens at $1000 per million
	res, err := (&Runner{Grace: time.Second, Prices: dollarPerMessage}).Run(t.Context(), Request{Preset: p, Prompt: "x", Dir: dir, Env: env,
		LogPath: filepath.Join(dir, "agent.log"), Timeout: 30 * time.Second, Limits: budget.Limits{MaxCostUSD: 3, MaxTokens: 1 << 40}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Reason, "iteration limit: the agent used $3.0000 of its cost limit of $3.00") || !res.Failed() ||
		!res.Usage.CostKnown || res.Usage.CostUSD < 3 {
		t.Errorf("result = %+v", res)
	}
}

// A version probe reads the first x.y.z the CLI prints; one that fails or
// prints none is an error that shows what it printed.
func TestInstalledVersion(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("its fake CLIs are #!/bin/sh scripts, which Windows does not run")
	}
	dir := t.TempDir()
	script := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name, body, want, err string
	}{
		{"claude", `echo "2.1.197 (Claude Code)"`, "2.1.197", ""},
		{"codex", `echo "codex-cli 0.169.0"; echo "build 1.2.3" >&2`, "0.169.0", ""},
		{"failing", `echo "1.0.0"; exit 3`, "", "exit 3: 1.0.0"},
		{"no version", `echo "usage: tool [flags]"`, "", "exit 0: usage: tool [flags]"},
	} {
		got, err := InstalledVersion(t.Context(), script(tc.name, tc.body))
		if got != tc.want || tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: InstalledVersion = %q, %v; want %q, error with %q", tc.name, got, err, tc.want, tc.err)
		}
	}
	if _, err := InstalledVersion(t.Context(), filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "ask ") {
		t.Errorf("a missing program: %v", err)
	}
}

// fanout writes to every writer it holds and skips the nil ones, typed nil
// pointers included.
func TestFanoutSkipsNilWriters(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	r := &ring{size: 8}
	var nilRing *ring
	var nilFile *os.File
	n, err := fanout{nil, nilRing, nilFile, &buf, r}.Write([]byte("hello"))
	if n != 5 || err != nil || buf.String() != "hello" || string(r.buf) != "hello" {
		t.Errorf("Write = %d, %v; buffer %q, ring %q", n, err, buf.String(), r.buf)
	}
}

// The run's timeout is its own, or what is left until the deadline when that
// comes first; a deadline already past still leaves a moment, not "no limit".
func TestEffectiveTimeout(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, tc := range []struct {
		name     string
		req      Request
		min, max time.Duration
	}{
		{"no deadline", Request{Timeout: time.Minute}, time.Minute, time.Minute},
		{"no timeout, no deadline", Request{}, 0, 0},
		{"the deadline comes first", Request{Timeout: time.Hour, Deadline: now.Add(10 * time.Minute)}, 9 * time.Minute, 10 * time.Minute},
		{"the timeout comes first", Request{Timeout: time.Minute, Deadline: now.Add(time.Hour)}, time.Minute, time.Minute},
		{"only a deadline", Request{Deadline: now.Add(time.Hour)}, 59 * time.Minute, time.Hour},
		{"the deadline is past", Request{Timeout: time.Minute, Deadline: now.Add(-time.Second)}, time.Millisecond, time.Millisecond},
	} {
		if got := effectiveTimeout(tc.req); got < tc.min || got > tc.max {
			t.Errorf("%s: effectiveTimeout = %s, want %s..%s", tc.name, got, tc.min, tc.max)
		}
	}
}

// The agent runs with the runner's base environment (when set) and the
// request's variables, not with this process's.
func TestRunnerBaseEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	p, env := fakePreset(t, FormatText, PromptStdin, "env-to:"+out)
	env["AGENT_TEST_BAR"] = "bar"
	base := []string{"AGENT_TEST_FOO=from-base", "AGENT_HELPER_ACTIONS=none", "PATH=" + os.Getenv("PATH")}
	if _, err := (&Runner{BaseEnv: base}).Run(t.Context(), Request{Preset: p, Prompt: "x", Dir: dir, Env: env, LogPath: filepath.Join(dir, "l")}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "from-base,bar" {
		t.Errorf("the agent saw %q (%v), want the base's FOO and the request's BAR", b, err)
	}
}

// An agent with a structured format has completed when its final answer holds
// the marker on a line of its own, not otherwise.
func TestRunnerMarkerInTheResult(t *testing.T) {
	t.Parallel()
	result := func(text string) string {
		return `print:{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"` + text + `","session_id":"s"}`
	}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{`all done\nDONE-42`, true},
		{`not done yet`, false},
	} {
		dir := t.TempDir()
		p, env := fakePreset(t, FormatClaudeStream, PromptStdin, result(tt.text))
		res, err := (&Runner{}).Run(t.Context(), Request{Preset: p, Prompt: "x", Dir: dir, Env: env,
			LogPath: filepath.Join(dir, "agent.log"), CompletionMarker: "DONE-42"})
		if err != nil || res.Completed != tt.want {
			t.Errorf("result %q: Completed = %v, want %v (err %v)", tt.text, res.Completed, tt.want, err)
		}
	}
}

// TestRunnerRedactsDecodedText: a secret in the CLI's JSON stream is escaped
// there (& as \u0026, < as \u003c, a quote as \"), where the stream's
// redaction may not see it (client_secret=\"…\": the catalog's rule takes
// quotes, not escaped ones); what the runner decodes from the stream (the
// result, the failure's reason, the narrated lines, the tool call the live
// status shows) is redacted again, before it is cut: none holds the secret.
func TestRunnerRedactsDecodedText(t *testing.T) {
	t.Parallel()
	const pw, oauth = "Zq8&uP3<xL9-rT5v", "Xk9vR2mLq7Tb4WnZ8pYc3Hs6"
	said := `login as deploy with password Zq8\u0026uP3\u003cxL9-rT5v rejected; client_secret=\"Xk9vR2mLq7Tb4WnZ8pYc3Hs6\"`
	stream := `{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-5"}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"` + said + `"}],"usage":{"input_tokens":10,"output_tokens":5}},"session_id":"s1"}
{"type":"assistant","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("x", 130) + ` client_secret=\"Xk9vR2mLq7Tb4WnZ8pYc3Hs6\""}],"usage":{"input_tokens":10,"output_tokens":5}},"session_id":"s1"}
{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"` + said + `"}}],"usage":{"input_tokens":10,"output_tokens":5}},"session_id":"s1"}
{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":1,"result":"` + said + `","session_id":"s1","total_cost_usd":0.01,"usage":{"input_tokens":20,"output_tokens":10}}
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "stream.jsonl"), []byte(stream), 0o600); err != nil {
		t.Fatal(err)
	}
	p, env := fakePreset(t, FormatClaudeStream, PromptStdin, "printfile:"+filepath.Join(dir, "stream.jsonl"))
	env["DEPLOY_PASSWORD"] = pw
	var echo strings.Builder
	var tools []string
	res, err := (&Runner{}).Run(t.Context(), Request{Preset: p, Prompt: "fix it", Dir: dir, Env: env,
		LogPath: filepath.Join(dir, "agent.log"), Echo: &echo, Timeout: time.Minute,
		OnTool: func(c string) { tools = append(tools, c) }})
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"result": res.Result, "reason": res.Reason, "echo": echo.String(), "tool": strings.Join(tools, "\n")} {
		if strings.Contains(s, pw) || strings.Contains(s, oauth) || !strings.Contains(s, "password [REDACTED:$DEPLOY_PASSWORD] rejected") {
			t.Errorf("%s: %q", what, s)
		}
	}
	// a narrated line is cut after it is redacted: no part of the secret is left
	if strings.Contains(echo.String(), "Xk9vR2mL") {
		t.Errorf("echo holds part of the secret: %q", echo.String())
	}
}
