package proc

import (
	"strings"
	"testing"
	"time"
)

// escape leaves a process behind that leaves the session (setsid; macOS has
// no setsid command) and whose parent ends after it, and prints its pid;
// with env -i it drops the marker too, and its parent waits a second, long
// enough for a scan to see it in the run's tree.
func escape(envI bool) string {
	perl := `use POSIX qw(setsid); defined(my $p = fork) or die; if ($p) { print "$p\n"; close STDOUT; sleep ` + map[bool]string{true: "1", false: "0"}[envI] + `; exit 0 } setsid(); open STDIN, "</dev/null"; open STDOUT, ">/dev/null"; open STDERR, ">/dev/null"; exec "sleep", "300"`
	prefix := ""
	if envI {
		prefix = "env -i "
	}
	return "echo $(" + prefix + "/usr/bin/perl -e '" + perl + "')"
}

// On macOS a run's tree is watched: what leaves its group, whether it drops
// the marker (seen in a scan) or not (its marker), dies with the run and is
// counted as left behind; what stays in the group is ended with it, and not
// counted.
func TestRunContainsByWatch(t *testing.T) {
	t.Parallel()
	if c := (&Groups{}).Contains(); c.Kind != ContainWatch {
		t.Fatalf("Contains = %s, want the watch", c)
	}
	for _, envI := range []bool{true, false} {
		out, _ := lineEvents(1)
		res, err := Run(t.Context(), Spec{Argv: []string{"sh", "-c", escape(envI) + "; sleep 300 & exit 0"}, Stdout: out, Grace: time.Second})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("env -i %v: Run = %+v, %v", envI, res, err)
		}
		if res.LeftBehind != 1 {
			t.Errorf("env -i %v: LeftBehind = %d, want the 1 process that left the run's group", envI, res.LeftBehind)
		}
		assertGone(t, pids(t, strings.Split(out.String(), "\n")[0]), 2*time.Second)
	}
}

// A process's start time tells it from a later one with its pid.
func TestStartTimeDarwin(t *testing.T) {
	t.Parallel()
	st, err := StartTime(1)
	if err != nil || st == "" || st == "0.0" {
		t.Errorf("StartTime(launchd) = %q, %v", st, err)
	}
	if _, err := StartTime(1 << 30); err == nil {
		t.Error("StartTime of no process: no error")
	}
}
