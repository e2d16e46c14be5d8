//go:build windows

package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a run's "process group" is a Job Object: the child starts
// suspended, is put in a job of its own created with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, and only then runs, so every process it
// starts is in the job (nothing escapes before the assignment), and ending the
// job ends them all. Only agentloop holds the job's handle: when agentloop
// dies, however it dies, the system closes it and kills what is in the job.
// The child is also the leader of a new console process group
// (CREATE_NEW_PROCESS_GROUP): the console's Ctrl-C reaches agentloop, not
// it, and agentloop asks it to stop with CTRL_BREAK_EVENT, Windows' SIGTERM.

// jobExitCode is the exit code of the processes of a job agentloop ends
// (the shell's 128+SIGKILL); [exitStatus] reads it as SIGKILL.
const jobExitCode = 128 + 9

// statusControlCExit is the exit code of a process ended by its console's
// Ctrl-C or Ctrl-Break (STATUS_CONTROL_C_EXIT).
const statusControlCExit = 0xC000013A

// stillActive is the exit code of a process that has not exited (STILL_ACTIVE).
const stillActive = 259

// jobs holds the Job Object of each run started and not yet ended, by the
// pid of its first process: the table the kernel keeps of process groups on
// Unix (a group id names its members; a job is known only by its handle).
// It is the process's, as the kernel's table is the system's.
var jobs = &jobTable{m: map[int]windows.Handle{}}

type jobTable struct {
	mu sync.Mutex
	m  map[int]windows.Handle
}

func (t *jobTable) put(pid int, job windows.Handle) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.m[pid] = job
}

// take removes the job of pid from the table and returns it (0: none).
func (t *jobTable) take(pid int) windows.Handle {
	t.mu.Lock()
	defer t.mu.Unlock()
	j := t.m[pid]
	delete(t.m, pid)
	return j
}

func (t *jobTable) has(pid int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.m[pid]
	return ok
}

// Contains reports the job object every run is in.
func (g *Groups) Contains() Containment { return Containment{Kind: ContainJob} }

// setGroup makes the child the leader of a new console process group; it
// gets its job as it starts ([startCmd]).
func setGroup(cmd *exec.Cmd) { ownGroup(cmd) }

// ownGroup makes the child the leader of a new console process group: the
// console's Ctrl-C does not reach it (agentloop decides), CTRL_BREAK_EVENT
// sent to the group does.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// startCmd starts cmd suspended, puts it in a Job Object of its own that
// kills everything in it when its last handle closes, and lets it run: every
// process it ever starts is in the job. The job is ended by [killGroup].
func startCmd(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	job, err := newJob()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		_ = windows.CloseHandle(job)
		return err
	}
	pid := cmd.Process.Pid
	if err := assign(job, pid); err != nil {
		_ = windows.TerminateJobObject(job, jobExitCode)
		_ = windows.CloseHandle(job)
		_ = cmd.Process.Kill() // suspended, outside the job: nothing of it ran
		_ = cmd.Wait()
		return fmt.Errorf("contain %s in a job object: %w", cmd.Path, err)
	}
	jobs.put(pid, job)
	if err := resume(pid); err != nil {
		killGroup(pid)
		_ = cmd.Wait()
		return fmt.Errorf("resume %s in its job object: %w", cmd.Path, err)
	}
	return nil
}

// newJob creates an unnamed Job Object whose processes are killed when its
// last handle is closed (agentloop's, not inherited by any child).
func newJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return 0, fmt.Errorf("set job object to kill on close: %w", err)
	}
	return job, nil
}

// assign puts the process pid in job.
func assign(job windows.Handle, pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	return windows.AssignProcessToJobObject(job, h)
}

// resume lets the threads of the suspended process pid run: os/exec does not
// keep the handle of its first thread, so its threads are found in a
// snapshot of the system's.
func resume(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d: %w", te.ThreadID, err)
		}
		_, err = windows.ResumeThread(th)
		_ = windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume thread %d: %w", te.ThreadID, err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("no thread of process %d found", pid)
	}
	return nil
}

// termGroup asks the console process group led by pid to stop
// (CTRL_BREAK_EVENT; it fails where agentloop has no console, and the kill
// after the grace ends it).
func termGroup(pid int) {
	_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pid))
}

// killGroup ends the job of the run led by pid, every process in it, and
// forgets it; a pid with no job of this process (a dead agentloop's run) is
// ended alone.
func killGroup(pid int) {
	if job := jobs.take(pid); job != 0 {
		_ = windows.TerminateJobObject(job, jobExitCode)
		_ = windows.CloseHandle(job)
		return
	}
	if h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid)); err == nil {
		_ = windows.TerminateProcess(h, jobExitCode)
		_ = windows.CloseHandle(h)
	}
}

// groupExists reports whether the run led by pid may still have processes:
// its job is this process's and not ended, or its leader lives (a dead
// agentloop's jobs died with it).
func groupExists(pid int) bool { return jobs.has(pid) || Alive(pid) }

// Alive reports whether a process with this pid exists and has not exited.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_ACCESS_DENIED) // it exists, it is not ours
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}

// StartTime is the creation time of the process pid (100 ns since 1601), which
// tells a reused pid apart.
func StartTime(pid int) (string, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return "", fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return "", fmt.Errorf("process %d times: %w", pid, err)
	}
	return fmt.Sprint(uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime)), nil
}

// Interrupt cannot reach another agentloop process on Windows: a console
// control event goes only to a process group of the sender's console.
func Interrupt(pid int) error {
	return fmt.Errorf("interrupt process %d: Windows has no SIGINT to send another process; press Ctrl-C in its console, or stop it without --now (after its iteration)", pid)
}

// exitStatus decodes how the process ended: ended with its job, as SIGKILL;
// by its console's Ctrl-C or Ctrl-Break, as SIGINT.
func exitStatus(ps *os.ProcessState) (code int, signal string) {
	if ps == nil {
		return -1, ""
	}
	return exitCodeStatus(uint32(ps.ExitCode()))
}

func exitCodeStatus(code uint32) (int, string) {
	switch code {
	case jobExitCode:
		return -1, "SIGKILL"
	case statusControlCExit:
		return -1, "SIGINT"
	}
	return int(code), ""
}

// detachAttr starts a [Detach]ed process in a console process group of its
// own, with no console, outside agentloop's jobs.
func detachAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS}
}
