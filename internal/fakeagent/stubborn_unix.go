//go:build unix

package fakeagent

import (
	"io"
	"os"
)

// spawnStubborn starts, in our process group, a shell that ignores SIGTERM and
// becomes a long sleep holding our stdout and stderr open (an ignored signal
// stays ignored across exec). It returns the child's pid.
func spawnStubborn(stdout, stderr io.Writer) (int, error) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	out, errf := fileOr(stdout, devnull), fileOr(stderr, devnull)
	p, err := os.StartProcess("/bin/sh", []string{"sh", "-c", `trap "" TERM; exec sleep 1000000`},
		&os.ProcAttr{Files: []*os.File{devnull, out, errf}})
	if err != nil {
		return 0, err
	}
	pid := p.Pid
	_ = p.Release()
	return pid, nil
}

// fileOr returns w when it is an *os.File (so the child holds it), else def.
func fileOr(w io.Writer, def *os.File) *os.File {
	if f, ok := w.(*os.File); ok {
		return f
	}
	return def
}
