package proc

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestRunSweepsSetsid: a process that left the group and the session (setsid,
// as gemini's and opencode's shell tools do) ends with the run: when the leader
// exits, when it times out, and when ctx is canceled (Ctrl-C).
func TestRunSweepsSetsid(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "setsid")
	tests := []struct {
		name   string
		script string
		spec   func(*Spec)
		cancel bool
	}{
		{"leader exits", "setsid sleep 300 & echo $!", nil, false},
		{"timeout", "setsid sleep 300 & echo $!; sleep 300", func(s *Spec) { s.Timeout = 500 * time.Millisecond }, false},
		{"canceled", "setsid sleep 300 & echo $!; sleep 300", nil, true},
		{"grandchild of a setsid child", "setsid sh -c 'sleep 300 & echo $!; sleep 300' & sleep 0.2", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			out, printed := lineEvents(1)
			if tt.cancel {
				go func() {
					select {
					case <-printed:
						cancel()
					case <-ctx.Done():
					}
				}()
			}
			s := Spec{Argv: []string{"sh", "-c", tt.script}, Stdout: out, Grace: 200 * time.Millisecond}
			if tt.spec != nil {
				tt.spec(&s)
			}
			res, err := Run(ctx, s)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Duration > 5*time.Second {
				t.Errorf("Run took %s: the escaped process held it", res.Duration)
			}
			assertGone(t, pids(t, out.String()), 2*time.Second)
		})
	}
}

func TestMarkerInherited(t *testing.T) {
	t.Parallel()
	env := withMarker([]string{"A=1", markerVar + "=outer"}, "inner")
	if !slices.Contains(env, markerVar+"=outer,inner") || !slices.Contains(env, "A=1") || len(env) != 2 {
		t.Errorf("withMarker = %q", env)
	}
	if a, b := newMarker(), newMarker(); a == b || !strings.HasPrefix(a, strings.Split(a, "-")[0]) {
		t.Errorf("markers %q and %q are not unique", a, b)
	}
	if hasMarker(os.Getpid(), "no-such-marker") {
		t.Error("this test process carries a marker it was never given")
	}
}
