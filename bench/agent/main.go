// Command agent-bench measures the Claude stream-json parser on a large
// generated transcript the way the runner reads an agent's output: bytes through
// proc.Lines (cut at the runner's line limit) into the parser. It prints the
// throughput and the peak resident memory (VmHWM), which must stay flat
// whatever the transcript's size.
//
//	go run ./bench/agent [-mb 200] [-keep FILE]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/proc"
)

func main() {
	mb := flag.Int("mb", 200, "transcript size in MB")
	keep := flag.String("keep", "", "write the transcript here and keep it (default: a temp file, removed)")
	flag.Parse()
	if err := run(*mb, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "agent-bench:", err)
		os.Exit(1)
	}
}

func run(mb int, keep string) error {
	path := keep
	if path == "" {
		dir, err := os.MkdirTemp("", "agent-bench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "stream.jsonl")
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	msgs, err := agent.WriteSyntheticClaudeStream(w, int64(mb)<<20)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write transcript: %w", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	fmt.Printf("transcript: %s, %.1f MB, %d assistant messages\n", path, float64(st.Size())/(1<<20), msgs)
	fmt.Printf("peak RSS after writing: %s\n", vmHWM())

	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	parser, err := agent.NewParser(agent.FormatClaudeStream)
	if err != nil {
		return err
	}
	start := time.Now()
	lines := proc.Lines(agent.DefaultMaxLine, parser.Line)
	n, err := io.Copy(lines, in)
	if err != nil {
		return fmt.Errorf("read transcript: %w", err)
	}
	_ = lines.Close()
	el := time.Since(start)
	out := parser.Result()
	fmt.Printf("parsed %.1f MB in %s: %.0f MB/s\n", float64(n)/(1<<20), el.Round(time.Millisecond), float64(n)/(1<<20)/el.Seconds())
	fmt.Printf("terminal=%v cost=$%.2f turns=%d session=%s\n", out.Terminal, out.Usage.CostUSD, out.Usage.Turns, out.Usage.SessionID)
	fmt.Printf("peak RSS (VmHWM): %s\n", vmHWM())
	if !out.Terminal {
		return fmt.Errorf("the result record was not seen")
	}
	return nil
}

// vmHWM is the process's peak resident set size, from /proc/self/status.
func vmHWM() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
