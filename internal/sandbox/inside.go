//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/agentloop/agentloop/internal/proc"
)

// listenFlag names one loopback address the bridge listens on and the Unix
// socket it passes each connection to: --listen 127.0.0.1:3128=/path/proxy.sock.
const listenFlag = "--listen"

// Inside is agentloop's part inside a sandbox: args are its --listen
// ADDR=SOCKET flags, "--" and the command. It gives up the terminal (so that
// nothing inside can type into it), listens on each loopback address of the
// sandbox's own network and passes every connection to the socket outside
// (the proxy, or an allowed local port), then runs the command in its own
// process group with SIGTERM restored, and ends as the command ended. The
// signals agentloop sends the group reach the command directly; this process
// outlives them until the command has ended, since the sandbox ends with it.
func Inside(args []string, stderr io.Writer) int {
	listens, argv, err := parseInside(args)
	if err != nil {
		fmt.Fprintf(stderr, "agentloop %s: %v\n", InsideCommand, err)
		return 2
	}
	dropTerminal()
	// Group signals are the command's to handle; this process waits for it.
	// Handled (not ignored), so that the command starts with their defaults.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	for addr, socket := range listens {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Fprintf(stderr, "agentloop sandbox: listen on %s inside the sandbox: %v\n", addr, err)
			return 126
		}
		defer l.Close()
		go serve(l, func(c net.Conn) {
			up, err := net.Dial("unix", socket)
			if err != nil {
				_ = c.Close()
				return
			}
			splice(c, up)
		})
	}
	code, sig, err := proc.Passthrough(argv, nil)
	if err != nil {
		fmt.Fprintf(stderr, "agentloop sandbox: %v\n", err)
		if errors.Is(err, os.ErrNotExist) {
			return 127
		}
		return 126
	}
	if sig != 0 {
		// End as the command did, so that agentloop reads the same signal.
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		return 128 + int(sig)
	}
	return code
}

// parseInside reads Inside's arguments.
func parseInside(args []string) (map[string]string, []string, error) {
	listens := map[string]string{}
	for len(args) > 0 && args[0] != "--" {
		if args[0] != listenFlag || len(args) < 2 {
			return nil, nil, fmt.Errorf("unexpected argument %q: want %s ADDR=SOCKET ... -- COMMAND", args[0], listenFlag)
		}
		addr, socket, ok := strings.Cut(args[1], "=")
		if !ok || addr == "" || socket == "" {
			return nil, nil, fmt.Errorf("%s %q: want ADDR=SOCKET", listenFlag, args[1])
		}
		listens[addr] = socket
		args = args[2:]
	}
	if len(args) < 2 {
		return nil, nil, errors.New("no command after --")
	}
	return listens, args[1:], nil
}

// dropTerminal gives up the controlling terminal, if there is one, for this
// process and what it starts: a program inside cannot push input into the
// terminal agentloop was started from (TIOCSTI).
func dropTerminal() {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return // no controlling terminal
	}
	defer f.Close()
	_, _, _ = syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCNOTTY, 0)
}

// insideArgs is the bridge's command line before the command: its binary,
// InsideCommand and a --listen flag for each address.
func insideArgs(exe string, listens [][2]string) []string {
	args := []string{exe, InsideCommand}
	for _, l := range listens {
		args = append(args, listenFlag, l[0]+"="+l[1])
	}
	return append(args, "--")
}
