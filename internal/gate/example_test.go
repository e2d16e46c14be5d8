package gate_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
)

func Example() {
	out := `{"Action":"run","Package":"example.com/m/calc","Test":"TestAdd"}
{"Action":"output","Package":"example.com/m/calc","Test":"TestAdd","Output":"    calc_test.go:9: Add(2,2) = 4, want 5\n"}
{"Action":"fail","Package":"example.com/m/calc","Test":"TestAdd","Elapsed":0}
{"Action":"fail","Package":"example.com/m/calc","Elapsed":0.01}
`
	rep, err := gate.Parse(strings.NewReader(out), gate.Options{Format: "auto", Module: "example.com/m"})
	if err != nil {
		fmt.Println(err)
		return
	}
	g := gate.Gate{Name: "tests", Command: "go test -json ./...", Required: true}
	res := gate.Judge(g, 1, rep, nil)
	fmt.Println(rep.Format, res.Passed, res.Findings[0].Key)
	fmt.Println(gate.Render([]evidence.GateResult{res}, nil, gate.RenderOptions{MaxLength: 200}))
	// Output:
	// gotest-json false TEST|go|calc.TestAdd
	// tests failed (exit 1): 1 failing test
	// 1. TEST calc.TestAdd (calc/calc_test.go:9): Add(2,2) = 4, want 5
}

func ExampleFeedbackCommand() {
	eslint := `[{"filePath":"/w/src/a.js","messages":[{"ruleId":"no-undef","severity":2,"message":"'x' is not defined.","line":3,"column":5}]}]`
	err := gate.FeedbackCommand(strings.NewReader(eslint), os.Stdout, gate.FeedbackOptions{Name: "lint", ExitCode: 1, WorkDir: "/w"})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// lint failed (exit 1): 1 lint finding
	// 1. LINT no-undef (src/a.js:3): 'x' is not defined.
}
