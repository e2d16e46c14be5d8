package gitx

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

func TestRunCancelledAndFailing(t *testing.T) {
	t.Parallel()
	needGit(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := git(ctx, t.TempDir(), "version"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
	_, err := git(t.Context(), t.TempDir(), "rev-parse", "--no-such-flag-xyz")
	ge, ok := errors.AsType[*Error](err)
	if !ok || ge.ExitCode == 0 || ge.Stderr == "" || !strings.Contains(err.Error(), "rev-parse") {
		t.Errorf("failure: %#v", err)
	}
}

func TestBuffers(t *testing.T) {
	t.Parallel()
	l := limitBuffer{max: 5}
	for _, s := range []string{"abc", "def", "ghi"} {
		if n, err := l.Write([]byte(s)); n != 3 || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if l.String() != "abcde" || !l.cut {
		t.Errorf("limitBuffer = %q cut=%v", l.String(), l.cut)
	}
	tb := tailBuffer{max: 4}
	for _, s := range []string{"abc", "def", "g"} {
		_, _ = tb.Write([]byte(s))
	}
	if tb.String() != "defg" {
		t.Errorf("tailBuffer = %q", tb.String())
	}
	env := cleanEnv([]string{"GIT_INDEX_FILE=/x", "GIT_DIR=/y", "PATH=/bin", "GIT_TERMINAL_PROMPT=1"})
	if got := strings.Join(env, " "); got != "PATH=/bin GIT_TERMINAL_PROMPT=0 GIT_OPTIONAL_LOCKS=0" {
		t.Errorf("cleanEnv = %q", got)
	}
}

// TestBuffersReadFrom: the buffers read a stream as their writes take it
// (the first max bytes, the last max bytes), and a stream copied into them
// from a pipe, as os/exec copies git's output, costs no 32 KiB copy buffer.
// Not parallel: it counts the process's allocations.
func TestBuffersReadFrom(t *testing.T) { //nolint:paralleltest // counts the process's allocations
	data := strings.Repeat("0123456789", 1000)
	for _, max := range []int{5, 9999, 10000, 20000} {
		l := limitBuffer{max: max}
		if n, err := l.ReadFrom(strings.NewReader(data)); n != int64(len(data)) || err != nil {
			t.Fatalf("limitBuffer.ReadFrom = %d, %v", n, err)
		}
		if want := data[:min(max, len(data))]; l.String() != want || l.cut != (max < len(data)) {
			t.Errorf("max %d: limitBuffer holds %d bytes, cut %v; want %d, cut %v", max, len(l.String()), l.cut, len(want), max < len(data))
		}
		tb := tailBuffer{max: max}
		if n, err := tb.ReadFrom(iotest.OneByteReader(strings.NewReader(data[:min(len(data), 3*max)]))); n != int64(min(len(data), 3*max)) || err != nil {
			t.Fatalf("tailBuffer.ReadFrom = %d, %v", n, err)
		}
		if want := data[:min(len(data), 3*max)]; tb.String() != want[len(want)-min(max, len(want)):] {
			t.Errorf("max %d: tailBuffer holds %q…, want the last %d bytes", max, tb.String()[:min(10, len(tb.String()))], max)
		}
	}
	copyFromPipe := func(w io.Writer) uint64 {
		r, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		go func() { _, _ = pw.WriteString("a tree\n"); _ = pw.Close() }()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := io.Copy(w, r); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	for name, w := range map[string]io.Writer{"stdout": &limitBuffer{max: maxOutput}, "stderr": &tailBuffer{max: stderrKeep}} {
		if n := copyFromPipe(w); n >= 16<<10 {
			t.Errorf("%s: copying 7 bytes from a pipe allocated %d bytes", name, n)
		}
	}
}
