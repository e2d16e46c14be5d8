//go:build unix

package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A detached process leads a session of its own (no terminal's hang-up or
// Ctrl-C reaches it), appends its output to the log and tells its exit code.
func TestDetach(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "watch", "run.log")
	for i, want := range []int{0, 3} {
		p, err := Detach([]string{"sh", "-c", "ps -o sid= -p $$; echo line " + strconv.Itoa(i) + "; exit " + strconv.Itoa(want)}, "", nil, log)
		if err != nil {
			t.Fatal(err)
		}
		if code, sig := p.Wait(); code != want || sig != "" {
			t.Errorf("Wait() = %d, %q; want %d", code, sig, want)
		}
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "line "+strconv.Itoa(i)) {
			t.Errorf("log %q lacks line %d", b, i)
		}
		lines := strings.Split(string(b), "\n")
		child := strings.TrimSpace(lines[len(lines)-3]) // its session id, then its line
		if sid, _ := unix.Getsid(0); child == strconv.Itoa(sid) || child != strconv.Itoa(p.PID) {
			t.Errorf("the process is in session %q, ours is %d: want its own, %d", child, sid, p.PID)
		}
	}
	if fi, err := os.Stat(log); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("log %v, %v; want 0600", fi, err)
	}
	if _, err := Detach([]string{filepath.Join(t.TempDir(), "nothing")}, "", nil, log); err == nil {
		t.Error("Detach of a missing program: no error")
	}
}
