package temporal

import (
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/converter"

	"github.com/agentloop/agentloop/internal/state"
)

// TestPendingLive: what a run's step under way is doing is what its last
// heartbeat's details say, read from the step among the pending activities
// of its workflow; none told (no details, another activity's, details of
// another shape or with no phase) is nothing.
func TestPendingLive(t *testing.T) {
	t.Parallel()
	details := func(v any) *commonpb.Payloads {
		p, err := converter.GetDefaultDataConverter().ToPayloads(v)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	pending := func(name string, d *commonpb.Payloads) *workflowpb.PendingActivityInfo {
		return &workflowpb.PendingActivityInfo{ActivityType: &commonpb.ActivityType{Name: name}, HeartbeatDetails: d}
	}
	agent := state.LiveStatus{Iteration: 2, Phase: "agent"}
	for _, tt := range []struct {
		name    string
		pending []*workflowpb.PendingActivityInfo
		want    state.LiveStatus
	}{
		{"none under way", nil, state.LiveStatus{}},
		{"the step told its phase", []*workflowpb.PendingActivityInfo{pending(ActivityStep, details(agent))}, agent},
		{"no heartbeat yet", []*workflowpb.PendingActivityInfo{pending(ActivityStep, nil)}, state.LiveStatus{}},
		{"another activity's", []*workflowpb.PendingActivityInfo{pending(ActivityKeep, details(agent))}, state.LiveStatus{}},
		{"no phase", []*workflowpb.PendingActivityInfo{pending(ActivityStep, details(state.LiveStatus{Iteration: 2}))}, state.LiveStatus{}},
		{"details of another shape", []*workflowpb.PendingActivityInfo{pending(ActivityStep, details("agent"))}, state.LiveStatus{}},
		{"the step after the keep", []*workflowpb.PendingActivityInfo{pending(ActivityKeep, nil), pending(ActivityStep, details(agent))}, agent},
	} {
		if got := pendingLive(tt.pending); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
