package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/state"
)

// The failures the decider found outside the task are listed under their own
// heading, by their labels; a run without any has no such heading.
func TestOutsideTaskListed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		outside []string
		want    bool
	}{
		{"listed", []string{"TEST|go|calc.TestRemote"}, true},
		{"none", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := &state.State{Version: 1, Name: "build", Status: state.StatusSucceeded,
				History: []state.Record{{N: 1, Succeeded: true, Decision: "proceed", OutsideTask: tt.outside}}}
			var b bytes.Buffer
			if err := Markdown(&b, Run{State: st}); err != nil {
				t.Fatal(err)
			}
			got := strings.Contains(b.String(), "## Failing before the run, outside the task\n") && strings.Contains(b.String(), "- calc.TestRemote\n")
			if got != tt.want {
				t.Errorf("heading and calc.TestRemote listed: %v, want %v\n%s", got, tt.want, b.String())
			}
			b.Reset()
			if err := HTML(&b, Run{State: st}); err != nil {
				t.Fatal(err)
			}
			got = strings.Contains(b.String(), "Failing before the run, outside the task</h") && strings.Contains(b.String(), "<li><code>calc.TestRemote</code></li>")
			if got != tt.want {
				t.Errorf("HTML: heading and calc.TestRemote listed: %v, want %v", got, tt.want)
			}
		})
	}
}
