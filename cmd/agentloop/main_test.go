package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentloop/agentloop/internal/cli"
	"github.com/agentloop/agentloop/internal/fakeagent"
	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/redact/redacttest"
	"github.com/agentloop/agentloop/internal/testenv"
)

// parallel is how many scripts (and the package's other parallel tests) run
// at once unless -parallel says: they mostly wait (on the timeouts and signals
// they test, an agent's sleep, a real go test), about a core for every four
// scripts, so more than the cores keeps the package short.
const parallel = "8"

// parallelM sets -parallel to [parallel] unless the command line gives it.
// It runs only when this binary runs the tests, not when it runs as one of the
// commands (whose arguments are not the test flags).
type parallelM struct{ m *testing.M }

func (p parallelM) Run() int {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", parallel)
	}
	return p.m.Run()
}

func TestMain(m *testing.M) {
	testscript.Main(parallelM{m}, map[string]func(){
		"agentloop": func() { os.Exit(cli.Main(os.Args[1:], cli.Std())) },
		"fakeagent": func() { os.Exit(fakeagent.Main()) },
		"ptyrun":    func() { os.Exit(ptyRun()) },
		"askmodel":  func() { os.Exit(askModel()) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script against the real
// binary and the fake agent.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("XDG_CONFIG_HOME", filepath.Join(e.WorkDir, ".config"))
			e.Setenv("HOME", e.WorkDir)
			// The user's state (the spend ledger every run keeps) is out of
			// the work folder, where scripts make their repositories, as a
			// real HOME is out of the repository; a script that wants it
			// under HOME sets XDG_STATE_HOME empty.
			e.Setenv("XDG_STATE_HOME", e.WorkDir+"-state")
			e.Setenv("FAKEAGENT_DIR", filepath.Join(e.WorkDir, ".fakeagent"))
			// Scripts run the fake agent under the claude preset, which as root
			// needs IS_SANDBOX (agent_outcomes unsets it to see the refusal).
			e.Setenv("IS_SANDBOX", "1")
			// agentloop, fakeagent and askmodel are this binary run again:
			// built with -race, each would wait a second at exit.
			e.Setenv("GORACE", testenv.GORACE())
			fake, err := filepath.Abs(filepath.Join("testdata", "fake"))
			if err != nil {
				return err
			}
			e.Setenv("FAKE", fake)
			// State files kept from earlier schema versions, to resume from.
			fixtures, err := filepath.Abs(filepath.Join("..", "..", "internal", "state", "testdata"))
			if err != nil {
				return err
			}
			e.Setenv("STATE_FIXTURES", fixtures)
			// Scripts run go with HOME in their work folder: keep the real
			// build and module caches so they stay warm.
			for k, v := range goEnv() {
				e.Setenv(k, v)
			}
			if goBin, err := exec.LookPath("go"); err == nil {
				e.Setenv("GOBIN_DIR", filepath.Dir(goBin))
			}
			e.Values[doubleKey{}] = &doubleHolder{}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "git", "go", "setsid", "bwrap": // a missing tool fails the script under CI=true
				return testenv.Condition(cond)
			case "short":
				return testing.Short(), nil
			case "pidns":
				return pidNamespace()
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":       cmdExits,
			"waitfile":    cmdWaitFile,
			"bgexit":      cmdBgExit,
			"signal":      cmdSignal,
			"pidsgone":    cmdPidsGone,
			"hookserver":  cmdHookServer,
			"credentials": cmdCredentials,
			"leaks":       cmdLeaks,
			"ghdouble":    cmdGHDouble,
		},
	})
}

// goEnv is the go command's cache and module settings of the real user.
func goEnv() map[string]string {
	out := map[string]string{}
	b, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return out
	}
	for i, v := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if v != "" && i < 3 {
			out[[]string{"GOCACHE", "GOMODCACHE", "GOPATH"}[i]] = v
		}
	}
	if v := os.Getenv("GOFLAGS"); v != "" {
		out["GOFLAGS"] = v
	}
	return out
}

// exits N prog args...: run prog and require exit code N.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	code := 0
	if err != nil {
		ee, ok := errors.AsType[*exec.ExitError](err)
		if !ok {
			ts.Fatalf("run %s: %v", args[1], err)
		}
		code = ee.ExitCode()
	}
	if code != want {
		ts.Fatalf("%s exited %d, want %d", args[1], code, want)
	}
}

// waitfile [-t DURATION] PATH [SUBSTRING]: wait until the file exists (and holds
// the substring); a PATH with * waits for any file it matches.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	limit := 20 * time.Second
	if len(args) >= 2 && args[0] == "-t" {
		d, err := time.ParseDuration(args[1])
		ts.Check(err)
		limit, args = d, args[2:]
	}
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile [-t DURATION] PATH [SUBSTRING]")
	}
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		paths, _ := filepath.Glob(path)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil && (len(args) == 1 || strings.Contains(string(b), args[1])) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("%s did not appear within %s", args[0], limit)
}

// bgexit CODE: every finished background command exited with CODE.
func cmdBgExit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: bgexit CODE")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	for _, c := range ts.BackgroundCmds() {
		if c.ProcessState == nil {
			continue
		}
		if got := c.ProcessState.ExitCode(); got != want {
			ts.Fatalf("background %s exited %d, want %d", c.Path, got, want)
		}
	}
}

// signal -NAME: send the signal NAME (TERM, INT, HUP) to the background
// commands still running; testscript's kill knows only INT and KILL.
func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	sigs := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "HUP": syscall.SIGHUP}
	name, _ := strings.CutPrefix(strings.Join(args, " "), "-")
	sig, ok := sigs[name]
	if neg || len(args) != 1 || !ok {
		ts.Fatalf("usage: signal -TERM|-INT|-HUP")
	}
	sent := 0
	for _, c := range ts.BackgroundCmds() {
		err := c.Process.Signal(sig)
		if errors.Is(err, os.ErrProcessDone) {
			continue // waited for already
		}
		ts.Check(err)
		sent++
	}
	if sent == 0 {
		ts.Fatalf("signal -%s: no background command is running", name)
	}
}

// pidsgone [-t DURATION] FILE...: every pid listed in the files (one per line) is
// gone within the time limit.
func cmdPidsGone(ts *testscript.TestScript, neg bool, args []string) {
	limit := 5 * time.Second
	if len(args) >= 2 && args[0] == "-t" {
		d, err := time.ParseDuration(args[1])
		ts.Check(err)
		limit, args = d, args[2:]
	}
	var pids []int
	for _, f := range args {
		b, err := os.ReadFile(ts.MkAbs(f))
		ts.Check(err)
		for _, l := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(l)
			ts.Check(err)
			pids = append(pids, pid)
		}
	}
	if len(pids) == 0 {
		ts.Fatalf("pidsgone: no pids in %v", args)
	}
	deadline := time.Now().Add(limit)
	for {
		alive := 0
		for _, pid := range pids {
			if proc.Alive(pid) {
				alive++
			}
		}
		if alive == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%d of %d processes still alive after %s", alive, len(pids), limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pidNamespace reports whether this process may run a command in a pid
// namespace of its own (unshare --pid --fork --mount-proc), where the session
// of the namespace's processes reads 0 as in a container. Without unshare the
// script fails under CI=true; without the right to make a namespace it is
// skipped.
func pidNamespace() (bool, error) {
	if ok, err := testenv.Condition("unshare"); !ok {
		return false, err
	}
	return exec.Command("unshare", "--pid", "--fork", "--mount-proc", "true").Run() == nil, nil
}

// credentialSeed makes the credentials of the scripts' credentials and leaks.
const credentialSeed = 25

// cmdCredentials writes to a file one credential of every kind agentloop
// redacts, each in the line it is printed in (the private keys over several
// lines), and sets the secret-named variable whose value is one of them.
//
//	credentials FILE
func cmdCredentials(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: credentials FILE")
	}
	creds := redacttest.Credentials(credentialSeed)
	var b strings.Builder
	for _, c := range creds {
		b.WriteString(c.Text() + "\n")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
	for _, kv := range redacttest.EnvFor(creds) {
		k, v, _ := strings.Cut(kv, "=")
		ts.Setenv(k, v)
	}
}

// cmdLeaks looks for every credential of cmdCredentials (any 12 bytes of it)
// in the files given, the files under the folders given, and the last
// command's stdout and stderr (named stdout and stderr). It logs each place
// that holds one with the kinds it holds, and the total, and fails when there
// is any (with !, when there is none).
//
//	leaks PATH...
func cmdLeaks(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: leaks PATH...")
	}
	creds := redacttest.Credentials(credentialSeed)
	found, places, read := 0, 0, 0
	look := func(name, text string) {
		read++
		var kinds []string
		for _, c := range creds {
			if c.Leaks(text) != "" {
				kinds = append(kinds, c.Kind)
			}
		}
		if len(kinds) > 0 {
			found += len(kinds)
			places++
			ts.Logf("leak in %s: %s", name, strings.Join(kinds, ", "))
		}
	}
	for _, a := range args {
		if a == "stdout" || a == "stderr" {
			look(a, ts.ReadFile(a))
			continue
		}
		root := ts.MkAbs(a)
		ts.Check(filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			look(filepath.Join(a, rel), string(b))
			return nil
		}))
	}
	ts.Logf("%d credential(s) of the %d kinds found in %d of %d places", found, len(creds), places, read)
	if found > 0 && !neg {
		ts.Fatalf("leaks: credentials found")
	}
	if found == 0 && neg {
		ts.Fatalf("leaks: no credential found")
	}
}
