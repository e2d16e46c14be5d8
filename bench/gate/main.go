// Command gate-bench streams N MiB of generated go test -json output through a pipe
// into gate.Parse and prints the throughput and the peak resident memory.
//
//	go run ./bench/gate -mib 1024
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/gate"
)

func main() {
	mib := flag.Int64("mib", 256, "MiB of go test -json to generate")
	longLine := flag.Bool("long-line", false, "also emit one single line of the same size")
	flag.Parse()
	size := *mib << 20
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 1<<20)
		if *longLine {
			_, _ = w.WriteString(`{"Action":"output","Package":"p","Test":"T","Output":"`)
			chunk := strings.Repeat("x", 1<<20)
			for range *mib {
				_, _ = w.WriteString(chunk)
			}
			_, _ = w.WriteString("\"}\n")
		}
		generate(w, size)
		_ = w.Flush()
		_ = pw.Close()
	}()
	start := time.Now()
	rep, err := gate.Parse(pr, gate.Options{Format: "gotest-json"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "parse:", err)
		os.Exit(1)
	}
	secs := time.Since(start).Seconds()
	fmt.Printf("parsed %d MiB in %.2fs: %.1f MB/s; findings %d (+%d dropped), tests %+v; peak RSS %s\n",
		*mib, secs, float64(size)/1e6/secs, len(rep.Findings), rep.Dropped, rep.Tests, peakRSS())
}

// generate writes about size bytes: passing tests with a log line, 1 in 100 failing.
func generate(w io.Writer, size int64) {
	var n int64
	for i := 0; n < size; i++ {
		pkg := fmt.Sprintf("example.com/m/p%d", i/1000)
		test := fmt.Sprintf("TestCase%d", i)
		action, msg := "pass", `    x_test.go:12: some log output line that a test prints\n`
		if i%100 == 99 {
			action, msg = "fail", `    x_test.go:18: got 4, want 5\n`
		}
		k, _ := fmt.Fprintf(w, "{\"Action\":\"run\",\"Package\":%q,\"Test\":%q}\n"+
			"{\"Action\":\"output\",\"Package\":%q,\"Test\":%q,\"Output\":\"%s\"}\n"+
			"{\"Action\":%q,\"Package\":%q,\"Test\":%q,\"Elapsed\":0}\n",
			pkg, test, pkg, test, msg, action, pkg, test)
		n += int64(k)
	}
}

// peakRSS reads VmHWM from /proc/self/status.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
