package fakeagent

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// do runs one action; done reports that the agent stops with code.
func (a *agent) do(act action) (code int, done bool) {
	failf := func(format string, args ...any) (int, bool) {
		fmt.Fprintf(a.stderr, "fakeagent: line %d: %s: %s\n", act.line, act.verb, fmt.Sprintf(format, args...))
		return ExitActionFailed, true
	}
	arg := func(i int) string { return act.args[i] }
	path := func() string { return os.Expand(act.args[0], a.getenv) }
	switch act.verb {
	case "print":
		fmt.Fprintln(a.stdout, arg(0))
	case "stderr":
		fmt.Fprintln(a.stderr, arg(0))
	case "printfile":
		f, err := os.Open(path())
		if err != nil {
			return failf("%v", err)
		}
		_, err = io.Copy(a.stdout, f)
		_ = f.Close()
		if err != nil {
			return failf("%v", err)
		}
	case "write", "append":
		if err := writeFile(path(), arg(1), act.verb == "append"); err != nil {
			return failf("%v", err)
		}
	case "replace":
		if err := replaceFile(path(), arg(1), arg(2)); err != nil {
			return failf("%v", err)
		}
	case "delete":
		if err := os.Remove(path()); err != nil {
			return failf("%v", err)
		}
	case "solve", "solveone":
		limit := 0
		if act.verb == "solveone" {
			limit = 1
		}
		msg, err := solve(path(), a.prompt, limit)
		if err != nil {
			return failf("%v", err)
		}
		fmt.Fprintln(a.stdout, msg)
	case "fixone":
		msg, err := fixOne(path())
		if err != nil {
			return failf("%v", err)
		}
		fmt.Fprintln(a.stdout, msg)
	case "exit":
		n, _ := strconv.Atoi(arg(0)) // checked by the parser
		return n, true
	case "sleep":
		d, _ := time.ParseDuration(arg(0))
		time.Sleep(d)
	case "waitfor":
		for {
			if _, err := os.Stat(path()); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	case "hang", "hang-stubborn":
		if act.verb == "hang-stubborn" {
			a.surviveTERM()
		}
		a.notePID(os.Getpid())
		for {
			time.Sleep(time.Hour)
		}
	case "spawn-stubborn":
		pid, err := spawnStubborn(a.stdout, a.stderr)
		if err != nil {
			return failf("%v", err)
		}
		a.notePID(pid)
		a.notePID(os.Getpid())
		fmt.Fprintf(a.stderr, "fakeagent: spawned stubborn child %d\n", pid)
	case "flood", "flood-raw", "flood-deltas":
		n, _ := parseSize(arg(0))
		if err := floods[act.verb](a.stdout, n); err != nil {
			return failf("%v", err)
		}
	case "fetch":
		msg, err := fetch(arg(0))
		if err != nil {
			return failf("%v", err)
		}
		fmt.Fprintln(a.stdout, msg)
	case "expect-prompt":
		if !strings.Contains(a.prompt, arg(0)) {
			fmt.Fprintf(a.stderr, "fakeagent: line %d: the prompt lacks %q\n", act.line, arg(0))
			return ExitPromptMissing, true
		}
	case "reject-prompt":
		if strings.Contains(a.prompt, arg(0)) {
			fmt.Fprintf(a.stderr, "fakeagent: line %d: the prompt contains %q\n", act.line, arg(0))
			return ExitPromptFound, true
		}
	default:
		return failf("unknown action") // the parser refuses these first
	}
	return 0, false
}

// fetch GETs url through the proxy the environment names (HTTP_PROXY),
// and says what it got: "fetch URL: 200 OK: first line"; an error says what
// refused it.
func fetch(url string) (string, error) {
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	first, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("%s: %s: %s", url, resp.Status, first)
	}
	return fmt.Sprintf("fetch %s: %s: %s", url, resp.Status, first), nil
}

// notePID appends pid to $FAKEAGENT_DIR/pids so tests can check it is gone.
func (a *agent) notePID(pid int) { a.note("pids", strconv.Itoa(pid)) }

// surviveTERM catches SIGTERM (on Windows, Ctrl-Break) from now on and, for
// each one received, appends our pid to $FAKEAGENT_DIR/sigterm, so a test can
// wait until the signal arrived.
func (a *agent) surviveTERM() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, termSignal)
	go func() {
		for range c {
			a.note("sigterm", strconv.Itoa(os.Getpid()))
		}
	}()
}

// note appends a line to the file name in $FAKEAGENT_DIR.
func (a *agent) note(name, line string) {
	if a.dir == "" {
		return
	}
	path := filepath.Join(a.dir, name)
	// The file appears with its first line in it: a test that waits for it
	// and then kills the agent (and agentloop) never reads it empty.
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, []byte(line+"\n"), 0o600); err == nil {
		err = os.Link(tmp, path)
		_ = os.Remove(tmp)
		if err == nil {
			return
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintln(f, line)
	_ = f.Close()
}

func writeFile(path, content string, appendTo bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func replaceFile(path, old, new string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if old == "" || !bytes.Contains(b, []byte(old)) {
		return fmt.Errorf("%q not found in %s", old, path)
	}
	return os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644)
}

// fileOr returns w when it is an *os.File (so the child holds it), else def.
func fileOr(w io.Writer, def *os.File) *os.File {
	if f, ok := w.(*os.File); ok {
		return f
	}
	return def
}
