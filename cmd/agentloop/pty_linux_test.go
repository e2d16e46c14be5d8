package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// ptyRun is the scripts' ptyrun program: `ptyrun COLS PROG ARGS...` runs PROG
// with its standard streams on a new pseudo-terminal COLS columns wide, copies
// what PROG writes to the terminal to stdout, and exits with PROG's code. It
// is how a script sees what a person sees in a narrow terminal pane.
func ptyRun() int {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: ptyrun COLS PROG [ARGS...]")
		return 2
	}
	cols, err := strconv.Atoi(os.Args[1])
	if err != nil || cols < 1 || cols > 1000 {
		fmt.Fprintf(os.Stderr, "ptyrun: bad width %q\n", os.Args[1])
		return 2
	}
	master, slave, err := openPTY(uint16(cols))
	if err != nil {
		fmt.Fprintf(os.Stderr, "ptyrun: %v\n", err)
		return 1
	}
	defer master.Close()
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "ptyrun: %v\n", err)
		return 1
	}
	slave.Close()
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(&out, master) // ends with EIO once no process holds the terminal
		close(copied)
	}()
	err = cmd.Wait()
	select {
	case <-copied:
	case <-time.After(5 * time.Second): // a child that kept the terminal open
		fmt.Fprintln(os.Stderr, "ptyrun: the terminal stayed open after the program ended")
	}
	_, _ = os.Stdout.Write(out.Bytes())
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "ptyrun: %v\n", err)
		return 1
	}
	return 0
}

// openPTY opens a new pseudo-terminal cols columns wide (24 rows).
func openPTY(cols uint16) (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	var unlock int32
	var n uint32
	if err = ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err == nil {
		err = ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&n))
	}
	if err == nil {
		slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	}
	if err == nil {
		ws := struct{ Row, Col, X, Y uint16 }{Row: 24, Col: cols}
		if err = ioctl(slave, syscall.TIOCSWINSZ, unsafe.Pointer(&ws)); err != nil {
			slave.Close()
		}
	}
	if err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("open a pseudo-terminal: %w", err)
	}
	return master, slave, nil
}

func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); e != 0 {
		return e
	}
	return nil
}
