//go:build unix

// Command redact-bench measures the redactor on agentloop's output path: the
// same bytes, piped from a generator, written to a file by tee and by the
// redacting writer, in alternating rounds on the same machine, and reports
// the redactor's throughput as a share of tee's (the target: at least 0.5).
//
//	go run ./bench/redact [-size 1G] [-rounds 3]
//
// The bytes are the recorded agent transcripts and gate outputs of the test
// data (internal/agent/testdata, internal/gate/testdata/fixtures), repeated,
// with a credential of a known shape and a secret variable's value every 64 KiB,
// so that redaction happens as it would. The redacted file is checked: no
// secret left, every marker where a secret was.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentloop/agentloop/internal/redact"
)

// The secrets woven into the stream: a GitHub token (by shape) and the value
// of a variable named as a secret (by the environment).
const (
	shaped   = "ghp_R8xk2Lq9VwZ3mN7pT4sY6bC1dF5gH0jK2aE9"
	valueEnv = "BENCH_SERVICE_TOKEN"
	value    = "tok-8f3a9c2e71b4d6059e"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == "gen" {
		gen(os.Args[2])
		return
	}
	if len(os.Args) > 2 && os.Args[1] == "filter" {
		filter(os.Args[2])
		return
	}
	size := flag.String("size", "1G", "bytes to stream (K, M, G suffixes)")
	rounds := flag.Int("rounds", 3, "rounds of tee then the redactor")
	flag.Parse()
	if err := run(*size, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "redact-bench:", err)
		os.Exit(1)
	}
}

func run(size string, rounds int) error {
	n, err := parseSize(size)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "redact-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "out")
	var ratios []float64
	for i := range rounds {
		tee, err := pipeline(self, size, "tee "+out+" >/dev/null")
		if err != nil {
			return fmt.Errorf("tee: %w", err)
		}
		_ = os.Remove(out)
		red, err := pipeline(self, size, self+" filter "+out)
		if err != nil {
			return fmt.Errorf("redactor: %w", err)
		}
		if err := check(out); err != nil {
			return err
		}
		_ = os.Remove(out)
		ratio := tee.wall.Seconds() / red.wall.Seconds()
		ratios = append(ratios, ratio)
		fmt.Printf("round %d: tee %.2fs wall (%.0f MB/s, %.2fs CPU), redactor %.2fs wall (%.0f MB/s, %.2fs CPU): ratio %.2f\n",
			i+1, tee.wall.Seconds(), float64(n)/1e6/tee.wall.Seconds(), tee.cpu.Seconds(),
			red.wall.Seconds(), float64(n)/1e6/red.wall.Seconds(), red.cpu.Seconds(), ratio)
	}
	slices.Sort(ratios)
	fmt.Printf("%s through a pipe into a file, %d rounds, %s, GOMAXPROCS %d: median ratio redactor/tee %.2f (min %.2f, max %.2f)\n",
		size, rounds, runtime.Version(), runtime.GOMAXPROCS(0), ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1])
	return nil
}

type timing struct{ wall, cpu time.Duration }

// pipeline runs "SELF gen SIZE | sink" and times it, with the CPU time of its
// processes (the generator's included, the same for both sinks).
func pipeline(self, size, sink string) (timing, error) {
	cmd := exec.Command("sh", "-c", self+" gen "+size+" | "+sink)
	cmd.Env = append(os.Environ(), valueEnv+"="+value)
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return timing{}, err
	}
	u := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(u.Utime.Nano() + u.Stime.Nano())
	return timing{wall: time.Since(start), cpu: cpu}, nil
}

// gen writes size bytes of the corpus to standard output.
func gen(size string) {
	n, err := parseSize(size)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	block := corpus()
	w := bufio.NewWriterSize(os.Stdout, 256<<10)
	for ; n > 0; n -= int64(len(block)) {
		if int64(len(block)) > n {
			block = block[:n]
		}
		if _, err := w.Write(block); err != nil {
			os.Exit(1)
		}
	}
	_ = w.Flush()
}

// filter redacts standard input into the file out, as agentloop's output path
// does (the writer redacts; a buffered file takes what it passes on).
func filter(out string) {
	f, err := os.Create(out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := redact.New(os.Environ()).NewWriter(f)
	buf := make([]byte, 256<<10)
	if _, err := io.CopyBuffer(w, os.Stdin, buf); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := w.Close(); err != nil || f.Close() != nil {
		fmt.Fprintln(os.Stderr, "write:", err)
		os.Exit(1)
	}
}

// check reads the redacted file: no secret, and markers for both kinds.
func check(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var shapes, values int
	for {
		line, err := r.ReadSlice('\n')
		if bytes.Contains(line, []byte(shaped)) || bytes.Contains(line, []byte(value)) {
			return fmt.Errorf("a secret is left in the redacted output: %.200q", line)
		}
		shapes += bytes.Count(line, []byte(redact.Marker))
		values += bytes.Count(line, []byte("[REDACTED:$"+valueEnv+"]"))
		if err == io.EOF {
			break
		}
		if err != nil && err != bufio.ErrBufferFull {
			return err
		}
	}
	if shapes == 0 || values == 0 {
		return fmt.Errorf("the redacted output has %d shape markers and %d value markers, want both", shapes, values)
	}
	return nil
}

// corpus is the test data's recorded outputs with the secrets woven in, about
// every 64 KiB.
func corpus() []byte {
	root := moduleRoot()
	var b bytes.Buffer
	next := 0
	for _, g := range []string{"internal/agent/testdata/*.jsonl", "internal/agent/testdata/real/*.jsonl", "internal/gate/testdata/fixtures/*/*"} {
		files, _ := filepath.Glob(filepath.Join(root, g))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			for _, line := range strings.SplitAfter(string(data), "\n") {
				b.WriteString(line)
				if b.Len() >= next {
					fmt.Fprintf(&b, "export GITHUB_TOKEN=%s # and the service token is %s\n", shaped, value)
					next = b.Len() + 64<<10
				}
			}
			if b.Len() > 0 && b.Bytes()[b.Len()-1] != '\n' {
				b.WriteByte('\n')
			}
		}
	}
	if b.Len() == 0 {
		fmt.Fprintln(os.Stderr, "redact-bench: no test data found under", root)
		os.Exit(1)
	}
	return b.Bytes()
}

func moduleRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("size %q: want a number with an optional K, M or G", s)
	}
	return n * mult, nil
}
