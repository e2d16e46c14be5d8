package testenv

import (
	"runtime"
	"strings"
	"testing"
)

// present is a program on every PATH of its system.
func present() string {
	if runtime.GOOS == "windows" {
		return "cmd"
	}
	return "sh"
}

func TestLookTool(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			if p, required, err := LookTool("agentloop-no-such-tool", present()); err != nil || p == "" || required {
				t.Errorf("LookTool(missing, sh) = %q, %v, %v; want the path of sh", p, required, err)
			}
			_, required, err := LookTool("agentloop-no-such-tool")
			if err == nil || !strings.Contains(err.Error(), "agentloop-no-such-tool is not on PATH") {
				t.Errorf("LookTool(missing): error %v", err)
			}
			if required != (ci == "true") {
				t.Errorf("required = %v under CI=%q", required, ci)
			}
			ok, err := Condition("agentloop-no-such-tool")
			if ok || (err != nil) != (ci == "true") {
				t.Errorf("Condition(missing) = %v, %v under CI=%q; want false, and an error only under CI", ok, err, ci)
			}
			if ok, err := Condition(present()); !ok || err != nil {
				t.Errorf("Condition(sh) = %v, %v", ok, err)
			}
		})
	}
}

// recorder is a testing.TB that records how a test ended.
type recorder struct {
	testing.TB
	skipped, failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Skip(...any)           { r.skipped = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestNeedTool(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			r := &recorder{TB: t}
			NeedTool(r, "agentloop-no-such-tool")
			if r.failed != (ci == "true") || r.skipped == (ci == "true") {
				t.Errorf("under CI=%q: skipped %v, failed %v", ci, r.skipped, r.failed)
			}
			r = &recorder{TB: t}
			if p := NeedTool(r, present()); p == "" || r.skipped || r.failed {
				t.Errorf("NeedTool(sh) = %q, skipped %v, failed %v", p, r.skipped, r.failed)
			}
		})
	}
}

func TestGORACE(t *testing.T) {
	for _, c := range []struct{ user, want string }{
		{"", "atexit_sleep_ms=0"},
		{"halt_on_error=1", "atexit_sleep_ms=0 halt_on_error=1"},
		// the user's setting comes after, and the race runtime takes the last
		{"atexit_sleep_ms=500", "atexit_sleep_ms=0 atexit_sleep_ms=500"},
	} {
		t.Setenv("GORACE", c.user)
		if got := GORACE(); got != c.want {
			t.Errorf("GORACE with GORACE=%q = %q, want %q", c.user, got, c.want)
		}
	}
}
