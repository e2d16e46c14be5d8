package gate

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// GenGoTestJSON writes about size bytes of go test -json output: passing tests
// with output lines, one failing test in every hundred.
func genGoTestJSON(w io.Writer, size int64) {
	var n int64
	for i := 0; n < size; i++ {
		pkg := fmt.Sprintf("example.com/m/p%d", i/1000)
		test := fmt.Sprintf("TestCase%d", i)
		action := "pass"
		msg := "    x_test.go:12: some log output line that a test prints\\n"
		if i%100 == 99 {
			action = "fail"
			msg = "    x_test.go:18: got 4, want 5\\n"
		}
		k, _ := fmt.Fprintf(w, `{"Time":"2026-11-21T17:13:10.511230632Z","Action":"run","Package":%q,"Test":%q}
{"Time":"2026-11-21T17:13:10.511234079Z","Action":"output","Package":%q,"Test":%q,"Output":"=== RUN   %s\n"}
{"Time":"2026-11-21T17:13:10.511309501Z","Action":"output","Package":%q,"Test":%q,"Output":"%s"}
{"Time":"2026-11-21T17:13:10.511369524Z","Action":%q,"Package":%q,"Test":%q,"Elapsed":0}
`, pkg, test, pkg, test, test, pkg, test, msg, action, pkg, test)
		n += int64(k)
	}
}

func genJUnit(w io.Writer, size int64) {
	var n int64
	k, _ := io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><testsuites><testsuite name="s">`+"\n")
	n += int64(k)
	for i := 0; n < size; i++ {
		if i%100 == 99 {
			k, _ = fmt.Fprintf(w, `<testcase classname="pkg.Class%d" name="test_%d" time="0.01"><failure message="assert 4 == 5" type="AssertionError">at pkg.Class.test(File.java:13)</failure></testcase>`+"\n", i/50, i)
		} else {
			k, _ = fmt.Fprintf(w, `<testcase classname="pkg.Class%d" name="test_%d" time="0.01"><system-out>ok</system-out></testcase>`+"\n", i/50, i)
		}
		n += int64(k)
	}
	_, _ = io.WriteString(w, "</testsuite></testsuites>\n")
}

func benchParse(b *testing.B, data []byte, format string) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	n := 0
	for b.Loop() {
		rep, err := Parse(bytes.NewReader(data), Options{Format: format})
		if err != nil || len(rep.Findings) == 0 {
			b.Fatalf("Parse: %v, %d findings", err, len(rep.Findings))
		}
		n++
	}
	// On a loaded machine wall time says little: report throughput per CPU second too.
	if secs := (cpuTime() - cpu0).Seconds(); secs > 0 {
		b.ReportMetric(float64(len(data))*float64(n)/1e6/secs, "MB/cpu-s")
	}
}

func BenchmarkParseGoTestJSON(b *testing.B) {
	var buf bytes.Buffer
	genGoTestJSON(&buf, 32<<20)
	benchParse(b, buf.Bytes(), "gotest-json")
}

func BenchmarkParseJUnit(b *testing.B) {
	var buf bytes.Buffer
	genJUnit(&buf, 32<<20)
	benchParse(b, buf.Bytes(), "junit")
}
