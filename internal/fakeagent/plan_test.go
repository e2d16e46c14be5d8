package fakeagent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const samplePlan = `# a plan
print before any header
[1]
print one
exit 1
[2-3, 5]
write out/a.txt hello\nworld
replace "a file.go" "x := 1" x := 2
[*]
print "quoted \"text\"  "
stderr tab\there \\n
`

func TestParsePlanSections(t *testing.T) {
	t.Parallel()
	p, err := parsePlan("plan", strings.NewReader(samplePlan))
	if err != nil {
		t.Fatal(err)
	}
	type act struct {
		Line int
		Verb string
		Args []string
	}
	flat := func(as []action) []act {
		var out []act
		for _, a := range as {
			out = append(out, act{a.line, a.verb, a.args})
		}
		return out
	}
	def := []act{
		{2, "print", []string{"before any header"}},
		{10, "print", []string{`quoted "text"  `}},
		{11, "stderr", []string{"tab\there \\n"}},
	}
	mid := []act{
		{7, "write", []string{"out/a.txt", "hello\nworld"}},
		{8, "replace", []string{"a file.go", "x := 1", "x := 2"}},
	}
	tests := []struct {
		call int
		want []act
	}{
		{1, []act{{4, "print", []string{"one"}}, {5, "exit", []string{"1"}}}},
		{2, mid}, {3, mid}, {4, def}, {5, mid}, {6, def},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, flat(p.forCall(tt.call, ""))); diff != "" {
			t.Errorf("call %d (-want +got):\n%s", tt.call, diff)
		}
	}
}

func TestParsePlanErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, plan, want string
	}{
		{"unknown action", "print a\n\nfrobnicate x\n", "plan:3: unknown action \"frobnicate\""},
		{"bad header", "[x]\n", "plan:1: bad section"},
		{"reversed range", "[3-1]\n", "plan:1: bad section"},
		{"open header", "[1\n", "lacks ']'"},
		{"bad exit", "exit one\n", "plan:1: exit"},
		{"bad sleep", "sleep forever\n", "plan:1: sleep"},
		{"bad flood", "flood 10Q\n", "bad size"},
		{"extra args", "hang now\n", "takes no arguments"},
		{"missing path", "write\n", "missing"},
		{"bad quote", "replace f \"unterminated x\n", "bad quoted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parsePlan("plan", strings.NewReader(tt.plan))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parsePlan error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"100", 100, true}, {"64K", 64 << 10, true}, {"64KiB", 64 << 10, true},
		{"10M", 10 << 20, true}, {"2GB", 2 << 30, true}, {"-1", 0, false}, {"", 0, false}, {"x", 0, false},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("parseSize(%q) = %d, %v; want %d ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
