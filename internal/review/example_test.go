package review_test

import (
	"fmt"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/review"
)

func ExampleParse() {
	out := "The change looks right.\n```json\n" +
		`{"verdict": "request_changes", "score": 6, "tags": ["scope_creep"],` +
		` "findings": [{"severity": "major", "file": "a.go", "line": 3, "msg": "error ignored"}]}` + "\n```"
	r, err := review.Parse(out)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(evidence.DisplayVerdict(r.Verdict), r.Score, r.Tags, r.Findings[0].File, r.Findings[0].Line)
	// Output: NEEDS_REVISION 6 [scope_creep] a.go 3
}
