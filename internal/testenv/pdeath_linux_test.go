package testenv

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEndsWithTest kills a process that started a sleep with EndsWithTest
// (this test binary, run again as that process) with SIGKILL, so that no
// cleanup runs, and checks the sleep ends with it.
func TestEndsWithTest(t *testing.T) {
	if os.Getenv("TESTENV_ENDS_WITH_TEST") == "1" {
		sleep := exec.Command("sleep", "60")
		EndsWithTest(sleep)
		if err := sleep.Start(); err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString(strconv.Itoa(sleep.Process.Pid) + "\n")
		_ = sleep.Wait()
		return
	}
	NeedTool(t, "sleep")
	parent := exec.Command(os.Args[0], "-test.run=^TestEndsWithTest$")
	parent.Env = append(os.Environ(), "TESTENV_ENDS_WITH_TEST=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = parent.Process.Kill()
		t.Fatalf("the helper printed no pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the helper printed %q, not a pid", line)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	_ = parent.Process.Kill() // SIGKILL: the helper runs no cleanup
	_ = parent.Wait()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		// The sleep is the orphan of a dead parent: init or a subreaper reaps
		// it, so a zombie left to them counts as ended.
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if errors.Is(err, os.ErrNotExist) {
			return
		}
		if err == nil {
			if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("sleep %d still runs 10 s after the process that started it was killed", pid)
		}
	}
}
