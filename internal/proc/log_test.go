package proc

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// pattern returns n bytes of distinguishable content.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + i%23 + i/997%3)
	}
	return b
}

func TestLogHeadTail(t *testing.T) {
	t.Parallel()
	const head, tail = 100, 50
	tests := []struct {
		name  string
		total int
	}{
		{"empty", 0},
		{"within head", 60},
		{"exactly head", head},
		{"into tail", head + 30},
		{"exactly head and tail", head + tail},
		{"omitted", head + tail + 1},
		{"much more", 100_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := pattern(tt.total)
			path := filepath.Join(t.TempDir(), "agent.log")
			l, err := NewLog(path, head, tail)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, uint64(tt.total)))
			for rest := data; len(rest) > 0; {
				n := min(len(rest), 1+rng.IntN(70))
				if _, err := l.Write(rest[:n]); err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
			}
			if got, want := l.Tail(20), data[max(0, tt.total-20):]; !bytes.Equal(got, want) {
				t.Errorf("Tail(20) = %q, want %q", got, want)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			want := data
			if omitted := tt.total - head - tail; omitted > 0 {
				want = fmt.Appendf(bytes.Clone(data[:head]), "\n[… %d bytes omitted …]\n%s", omitted, data[tt.total-tail:])
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("file content mismatch:\n got %q\nwant %q", got, want)
			}
			// Windows keeps no mode bits (its files have ACLs): a file reads 0666.
			if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
				t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
			}
		})
	}
}

func TestLogConcurrent(t *testing.T) {
	t.Parallel()
	l, err := NewLog(filepath.Join(t.TempDir(), "log"), 1<<10, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	chunk := pattern(64 << 10)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 32 {
				_, _ = l.Write(chunk)
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Write(chunk); err == nil {
		t.Error("Write after Close: no error")
	}
}

func TestLogSingleLargeWrite(t *testing.T) {
	t.Parallel()
	const head, tail, total = 1 << 10, 2 << 10, 8 << 20
	data := pattern(total)
	path := filepath.Join(t.TempDir(), "log")
	l, err := NewLog(path, head, tail)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := l.Write(data); n != total || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	want := fmt.Appendf(bytes.Clone(data[:head]), "\n[… %d bytes omitted …]\n%s", total-head-tail, data[total-tail:])
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Errorf("file holds %d bytes, want head + marker + tail (%d bytes)", len(got), len(want))
	}
}

// TestLogWriteNoAlloc is not parallel: AllocsPerRun refuses parallel tests.
func TestLogWriteNoAlloc(t *testing.T) { //nolint:paralleltest // AllocsPerRun
	l, err := NewLog(filepath.Join(t.TempDir(), "log"), 1<<10, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	chunk := pattern(64 << 10)
	if allocs := testing.AllocsPerRun(100, func() { _, _ = l.Write(chunk) }); allocs != 0 {
		t.Errorf("Write allocates %v times per call, want 0", allocs)
	}
}

// BenchmarkLogWrite writes 200 MiB per iteration through a Log with 1 MiB head
// and tail; allocations per op show that memory stays constant.
func BenchmarkLogWrite(b *testing.B) {
	const total = 200 << 20
	chunk := pattern(32 << 10)
	dir := b.TempDir()
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		l, err := NewLog(filepath.Join(dir, "bench.log"), 1<<20, 1<<20)
		if err != nil {
			b.Fatal(err)
		}
		for written := 0; written < total; written += len(chunk) {
			if _, err := l.Write(chunk); err != nil {
				b.Fatal(err)
			}
		}
		if err := l.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLogTailGrows: the tail kept is the last bytes seen whatever the sizes
// of the writes around the bound, and the memory it takes grows with the
// output, not to the bound at once.
func TestLogTailGrows(t *testing.T) {
	t.Parallel()
	const tail = 10 << 10
	for _, sizes := range [][]int{{1}, {3, 4, 5}, {4095, 2, 4096, 7000}, {tail - 1, 1, 1}, {tail}, {tail + 1, 3}, {100, tail * 2, 5}} {
		l, err := NewLog(filepath.Join(t.TempDir(), "log"), 0, tail)
		if err != nil {
			t.Fatal(err)
		}
		var seen []byte
		for i, n := range sizes {
			chunk := bytes.Repeat([]byte{byte('a' + i)}, n)
			chunk[0] = '<'
			if _, err := l.Write(chunk); err != nil {
				t.Fatal(err)
			}
			seen = append(seen, chunk...)
			for _, n := range []int{0, 1, 17, len(seen), tail, tail + 1} {
				want := seen[max(0, len(seen)-min(n, tail)):]
				if got := l.Tail(n); !bytes.Equal(got, want) {
					t.Fatalf("writes %v: Tail(%d) after write %d = %d bytes, want the last %d", sizes, n, i, len(got), len(want))
				}
			}
		}
		if len(seen) <= 4<<10 && cap(l.ring) > 4<<10 {
			t.Errorf("writes %v (%d bytes) took %d bytes of tail", sizes, len(seen), cap(l.ring))
		}
		if cap(l.ring) > tail {
			t.Errorf("writes %v: the tail grew to %d bytes, past its bound %d", sizes, cap(l.ring), tail)
		}
		_ = l.Close()
	}
}
