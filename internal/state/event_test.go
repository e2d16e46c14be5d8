package state

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
)

var evTime = time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)

// TestEventJSON pins the one JSON encoding of every event (the events.jsonl
// schema of docs/events.md) and checks that it reads back as the same event.
func TestEventJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ev   Event
		want string
	}{
		{Event{Time: evTime, Data: RunStarted{Procedure: "build", MaxIterations: 8, Iteration: 2, Resumed: true}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"run_started","data":{"procedure":"build","max_iterations":8,"iteration":2,"resumed":true}}`},
		{Event{Time: evTime, Data: BaselineStarted{}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"baseline_started"}`},
		{Event{Time: evTime, Data: BaselineFinished{Gates: 2, Failures: 3}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"baseline_finished","data":{"gates":2,"failures":3}}`},
		{Event{Time: evTime, Iteration: 1, Data: IterationStarted{MaxIterations: 8, Strategy: "refine"}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"iteration_started","iteration":1,"data":{"max_iterations":8,"strategy":"refine"}}`},
		{Event{Time: evTime, Iteration: 3, Data: IterationFinished{
			MaxIterations: 8, Duration: 45200, Succeeded: false, ConsecutiveFailures: 2, FailureThreshold: 3,
			Action: ActionSimplify, Strategy: "simplify", Message: "stuck", Quality: 0.5, Triggers: []string{"stuck"},
			AgentExit: 1, AgentReason: "timeout", CostUSD: 0.41, CostKnown: true, Tokens: 15400, TokensKnown: true,
			Review: "request_changes", ReviewScore: 6,
		}}, `{"v":2,"time":"2026-03-14T10:00:00Z","type":"iteration_finished","iteration":3,"data":{` +
			`"max_iterations":8,"duration_ms":45200,"succeeded":false,"consecutive_failures":2,"failure_threshold":3,` +
			`"action":"simplify","strategy":"simplify","message":"stuck","quality":0.5,"triggers":["stuck"],` +
			`"agent_exit":1,"agent_reason":"timeout","cost_usd":0.41,"cost_known":true,"tokens":15400,"tokens_known":true,` +
			`"review":"request_changes","review_score":6}}`},
		{Event{Time: evTime, Iteration: 3, Data: Rollback{Checkpoint: "0123456789abcdef"}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"rollback","iteration":3,"data":{"checkpoint":"0123456789abcdef"}}`},
		{Event{Time: evTime, Iteration: 3, Data: Warning{Message: "state not saved"}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"warning","iteration":3,"data":{"message":"state not saved"}}`},
		{Event{Time: evTime, Iteration: 5, Data: Escalated{Reason: "stuck", Question: "Which is right?"}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"escalated","iteration":5,"data":{"reason":"stuck","question":"Which is right?"}}`},
		{Event{Time: evTime, Data: GuidanceReceived{Architecture: true}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"guidance_received","data":{"architecture":true}}`},
		{Event{Time: evTime, Iteration: 5, Data: RunFinished{Status: StatusEscalated, Reason: "stuck", Iterations: 5, Wall: 1517}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"run_finished","iteration":5,"data":{"status":"escalated","reason":"stuck","iterations":5,"wall_ms":1517}}`},
		{Event{Time: evTime, Data: Message{Text: "Logs and state: .agentloop/runs/build/1"}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"message","data":{"text":"Logs and state: .agentloop/runs/build/1"}}`},
		{Event{Time: evTime, Iteration: 2, Data: Warning{Message: "budget: cost at 80%", Budget: []budget.Resource{budget.CostUSD}}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"warning","iteration":2,"data":{"message":"budget: cost at 80%","budget":["cost"]}}`},
		{Event{Time: evTime, Iteration: 2, Data: Warning{Message: "rate limited", RateLimitWait: 600000}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"warning","iteration":2,"data":{"message":"rate limited","rate_limit_wait_ms":600000}}`},
		{Event{Time: evTime, Iteration: 3, Data: NeedsYou{decision.NeedsYou{Kind: "escalated", Run: "build", Question: "Which?",
			Options: []decision.Answer{{Label: "Guide it", Command: `agentloop resume build --guidance "..."`}}}}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"needs_you","iteration":3,"data":{"kind":"escalated","run":"build","question":"Which?",` +
				`"options":[{"label":"Guide it","command":"agentloop resume build --guidance \"...\""}]}}`},
		{Event{Time: evTime, Data: NotificationSent{Notification: "finished", ID: "n1", Target: "slack", Attempts: 1, Duration: 12}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"notification_sent","data":{"notification":"finished","id":"n1","target":"slack","attempts":1,"duration_ms":12}}`},
		{Event{Time: evTime, Data: NotificationFailed{Notification: "finished", ID: "n1", Target: "webhook 127.0.0.1:9", Attempts: 3, Duration: 30000, Error: "HTTP 500"}},
			`{"v":2,"time":"2026-03-14T10:00:00Z","type":"notification_failed","data":{"notification":"finished","id":"n1","target":"webhook 127.0.0.1:9","attempts":3,"duration_ms":30000,"error":"HTTP 500"}}`},
	}
	seen := map[EventType]bool{}
	for _, tt := range tests {
		t.Run(string(tt.ev.Type()), func(t *testing.T) {
			got, err := json.Marshal(tt.ev)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("encoding\n got %s\nwant %s", got, tt.want)
			}
			var back Event
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("decode %s: %v", got, err)
			}
			if !reflect.DeepEqual(back, tt.ev) {
				t.Errorf("read back %+v, want %+v", back, tt.ev)
			}
		})
		seen[tt.ev.Type()] = true
	}
	for _, typ := range []EventType{EventRunStarted, EventBaselineStarted, EventBaselineFinished, EventIterationStarted,
		EventIterationFinished, EventRollback, EventWarning, EventEscalated, EventGuidanceReceived, EventRunFinished, EventMessage,
		EventNeedsYou, EventNotificationSent, EventNotificationFailed} {
		if !seen[typ] {
			t.Errorf("no encoding pinned for %s", typ)
		}
	}
}

// TestEventSchema1 reads lines as the previous version wrote them (no "v", the
// data a map with the same keys) into the typed events.
func TestEventSchema1(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want Event
	}{
		{`{"time":"2026-03-14T10:00:00Z","type":"run_started","data":{"iteration":0,"max_iterations":8,"procedure":"build","resumed":false}}`,
			Event{Time: evTime, Data: RunStarted{Procedure: "build", MaxIterations: 8}}},
		{`{"time":"2026-03-14T10:00:00Z","type":"baseline_started"}`, Event{Time: evTime, Data: BaselineStarted{}}},
		{`{"time":"2026-03-14T10:00:00Z","type":"baseline_finished","data":{"failures":1,"gates":1}}`,
			Event{Time: evTime, Data: BaselineFinished{Gates: 1, Failures: 1}}},
		{`{"time":"2026-03-14T10:00:00Z","type":"iteration_started","iteration":1,"data":{"max_iterations":8,"strategy":""}}`,
			Event{Time: evTime, Iteration: 1, Data: IterationStarted{MaxIterations: 8}}},
		{`{"time":"2026-03-14T10:00:00Z","type":"iteration_finished","iteration":1,"data":{"action":"refine","agent_exit":0,"agent_reason":"","consecutive_failures":0,"cost_known":false,"cost_usd":0,"duration_ms":824,"failure_threshold":3,"max_iterations":8,"message":"1 failure to fix","quality":0,"review":"approve","review_score":8,"strategy":"refine","succeeded":true,"tokens":0,"tokens_known":false,"triggers":["validation_failure"]}}`,
			Event{Time: evTime, Iteration: 1, Data: IterationFinished{MaxIterations: 8, Duration: 824, Succeeded: true, FailureThreshold: 3,
				Action: ActionRefine, Strategy: "refine", Message: "1 failure to fix", Triggers: []string{"validation_failure"}, Review: "approve", ReviewScore: 8}}},
		{`{"time":"2026-03-14T10:00:00Z","type":"rollback","iteration":3,"data":{"checkpoint":"abc"}}`,
			Event{Time: evTime, Iteration: 3, Data: Rollback{Checkpoint: "abc"}}},
		{`{"time":"2026-03-14T10:00:00Z","type":"warning","data":{"message":"budget: 80% of cost"}}`,
			Event{Time: evTime, Data: Warning{Message: "budget: 80% of cost"}}},
		{`{"time":"2026-03-14T10:00:00Z","type":"escalated","iteration":5,"data":{"question":"Q?","reason":"stuck"}}`,
			Event{Time: evTime, Iteration: 5, Data: Escalated{Reason: "stuck", Question: "Q?"}}},
		{`{"time":"2026-03-14T10:00:00Z","type":"guidance_received","data":{"architecture":false}}`,
			Event{Time: evTime, Data: GuidanceReceived{}}},
		{`{"time":"2026-03-14T10:00:00Z","type":"run_finished","iteration":5,"data":{"iterations":5,"reason":"stuck","status":"escalated","wall_ms":1517}}`,
			Event{Time: evTime, Iteration: 5, Data: RunFinished{Status: StatusEscalated, Reason: "stuck", Iterations: 5, Wall: 1517}}},
		{`{"time":"2026-03-14T10:00:00Z","type":"message","data":{"text":"hello"}}`,
			Event{Time: evTime, Data: Message{Text: "hello"}}},
	}
	for _, tt := range tests {
		var got Event
		if err := json.Unmarshal([]byte(tt.line), &got); err != nil {
			t.Errorf("%s: %v", tt.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s\n read %+v\n want %+v", tt.line, got, tt.want)
		}
	}
}

// TestEventUnknown: a type this version does not know, or a line of a newer
// schema, is kept as it was, not lost or misread; a line without a type or with
// data of the wrong shape is an error.
func TestEventUnknown(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`{"v":2,"time":"2026-03-14T10:00:00Z","type":"phase","iteration":2,"data":{"text":"gates"}}`,
		`{"v":3,"time":"2026-03-14T10:00:00Z","type":"run_started","data":{"procedure":{"name":"build"}}}`,
	} {
		var ev Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		u, ok := ev.Data.(UnknownEvent)
		if !ok {
			t.Fatalf("%s: read as %T, want UnknownEvent", line, ev.Data)
		}
		if got, err := json.Marshal(ev); err != nil || string(got) != line {
			t.Errorf("written back as %s, %v; want %s", got, err, line)
		}
		if u.Type == "" || len(u.Raw) == 0 {
			t.Errorf("unknown event %+v lost its type or data", u)
		}
	}
	for _, line := range []string{
		`{"v":2,"time":"2026-03-14T10:00:00Z","data":{}}`,
		`{"v":2,"time":"2026-03-14T10:00:00Z","type":"run_finished","data":{"iterations":"five"}}`,
		`[1,2]`,
	} {
		var ev Event
		if err := json.Unmarshal([]byte(line), &ev); err == nil {
			t.Errorf("%s: read as %+v, want an error", line, ev)
		}
	}
	if _, err := json.Marshal(Event{Time: evTime}); err == nil {
		t.Error("an event without data encoded, want an error")
	}
}

// FuzzEventJSON: any line that reads as an event writes back as a line that
// reads as the same event.
func FuzzEventJSON(f *testing.F) {
	f.Add([]byte(`{"time":"2026-03-14T10:00:00Z","type":"run_started","data":{"iteration":0,"max_iterations":8,"procedure":"build","resumed":false}}`))
	f.Add([]byte(`{"v":2,"time":"2026-03-14T10:00:00Z","type":"iteration_finished","iteration":3,"data":{"action":"refine","triggers":["stuck"],"duration_ms":5}}`))
	f.Add([]byte(`{"v":3,"type":"future","data":{ "a" : [1, 2] }}`))
	f.Add([]byte(`{"type":"baseline_started","data":null}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var ev Event
		if json.Unmarshal(line, &ev) != nil {
			return
		}
		once, err := json.Marshal(ev)
		if err != nil {
			t.Fatalf("%s read as %+v, which does not encode: %v", line, ev, err)
		}
		var back Event
		if err := json.Unmarshal(once, &back); err != nil {
			t.Fatalf("%s does not read back: %v", once, err)
		}
		twice, err := json.Marshal(back)
		if err != nil || string(twice) != string(once) {
			t.Fatalf("encoding not stable:\n%s\n%s (%v)", once, twice, err)
		}
	})
}
