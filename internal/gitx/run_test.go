package gitx

import (
	"context"
	"errors"
	"strings"
	"testing"
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
