package proc

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// sizes records the size of each write.
type sizes struct{ got []int }

func (s *sizes) Write(p []byte) (int, error) { s.got = append(s.got, len(p)); return len(p), nil }

// TestPumpBufferGrowsWithAFlood: a pipe's pump reads a short output into a
// small buffer (a short run's children printed little, and a buffer of
// readSize each was a fifth of what the run allocated), and passes a flood
// on in pieces of up to readSize. Not parallel: it counts the bytes the
// process allocates.
func TestPumpBufferGrowsWithAFlood(t *testing.T) { //nolint:paralleltest // counts the process's allocations
	pump := func(data string) []int {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = w.WriteString(data); _ = w.Close() }()
		var s sizes
		(&output{}).pump(r, &s)
		_ = r.Close()
		return s.got
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := pump("ok\n")
	runtime.ReadMemStats(&after)
	if len(got) != 1 || got[0] != 3 {
		t.Fatalf("writes %v, want one of 3 bytes", got)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n >= readSize/2 {
		t.Errorf("pumping 3 bytes allocated %d bytes, want less than %d", n, readSize/2)
	}
	largest := 0
	for _, n := range pump(strings.Repeat("x", 4*readSize)) {
		largest = max(largest, n)
	}
	if largest <= firstRead {
		t.Errorf("a flood was passed on in pieces of at most %d bytes, want larger than %d once the buffer grew", largest, firstRead)
	}
}
