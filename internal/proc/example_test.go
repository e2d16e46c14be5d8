//go:build unix

package proc_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/internal/proc"
)

func Example() {
	dir, _ := os.MkdirTemp("", "proc-example")
	defer os.RemoveAll(dir)
	log, err := proc.NewLog(filepath.Join(dir, "agent.log"), 1<<20, 1<<20)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := proc.Run(context.Background(), proc.Spec{
		Argv:    []string{"sh", "-c", "echo working; exit 3"},
		Stdout:  log,
		Stderr:  log,
		Timeout: time.Minute,
	})
	_ = log.Close()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("exit %d, %d bytes, tail %q\n", res.ExitCode, res.OutputBytes, log.Tail(8))
	// Output: exit 3, 8 bytes, tail "working\n"
}
