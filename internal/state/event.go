package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
)

// EventSchema is the version of the events' JSON encoding, written as "v" on every
// line of events.jsonl and of `--log-format json`. A line without "v" was written
// before the field existed (schema 1, the same keys); a line of a newer schema
// reads as [UnknownEvent]. docs/events.md documents the schema.
const EventSchema = 2

// EventType names what happened.
type EventType string

// The events of a run, in the order they happen.
const (
	EventRunStarted        EventType = "run_started"
	EventBaselineStarted   EventType = "baseline_started"
	EventBaselineFinished  EventType = "baseline_finished"
	EventIterationStarted  EventType = "iteration_started"
	EventIterationFinished EventType = "iteration_finished" // with the decision on it
	EventRollback          EventType = "rollback"
	EventWarning           EventType = "warning"
	EventEscalated         EventType = "escalated"
	EventGuidanceReceived  EventType = "guidance_received"
	EventHandoff           EventType = "handoff" // a person took part: resume, guidance, accept, abort
	EventRunFinished       EventType = "run_finished"
	// EventNeedsYou is the one record of what a waiting run asks of a person;
	// the environment around the loop emits it (the loop has no commands).
	EventNeedsYou EventType = "needs_you"
	// A notification delivered, or given up on; sent in the background, they
	// come when they come, never from the loop itself.
	EventNotificationSent   EventType = "notification_sent"
	EventNotificationFailed EventType = "notification_failed"
	// EventMessage is a progress line of the command around the loop; only in
	// `--log-format json`, never from the loop itself.
	EventMessage EventType = "message"
)

// Event is one phase change of a run. The loop fills Iteration and Data; the
// environment stamps Time (the loop reads no clock).
type Event struct {
	Time      time.Time
	Iteration int       // the iteration (in its segment) the event belongs to; 0 before the first
	Seq       int       // the agent attempt (run-wide) it belongs to; 0 for none
	Segment   int       // the segment it belongs to; 0 when not known (older logs)
	Data      EventData // what happened: RunStarted, IterationFinished, …
}

// EventData is the body of an [Event]: one of the event structs of this file.
// Each is plain data with one JSON encoding.
type EventData interface {
	EventType() EventType
}

// Type is the event's type, "" when it has no data.
func (e Event) Type() EventType {
	if e.Data == nil {
		return ""
	}
	return e.Data.EventType()
}

// RunStarted: a session of the run starts (a new run, or a resumed one).
type RunStarted struct {
	Procedure     string `json:"procedure"`
	MaxIterations int    `json:"max_iterations"` // 0: unlimited
	Iteration     int    `json:"iteration"`      // iterations done before this session (since the last guidance)
	Resumed       bool   `json:"resumed"`
	Segment       int    `json:"segment,omitempty"`  // the segment the session goes on with
	Attempts      int    `json:"attempts,omitempty"` // agent attempts before this session, every segment
	// Elapsed is how long the run was at work before this session
	// ([State.Elapsed]); 0 for a new run.
	Elapsed Millis `json:"elapsed_ms,omitempty"`
}

// BaselineStarted: the gates run on the untouched tree.
type BaselineStarted struct{}

// BaselineFinished: the baseline is known.
type BaselineFinished struct {
	Gates    int `json:"gates"`
	Failures int `json:"failures"` // findings already present before the agent ran
}

// IterationStarted: the agent is about to run.
type IterationStarted struct {
	MaxIterations int    `json:"max_iterations"`
	Strategy      string `json:"strategy"` // retry, refine, expand, simplify; "" for the first
}

// IterationFinished: an iteration's evidence and the decision on it.
type IterationFinished struct {
	MaxIterations       int    `json:"max_iterations"`
	Duration            Millis `json:"duration_ms"`
	Succeeded           bool   `json:"succeeded"`
	ConsecutiveFailures int    `json:"consecutive_failures"`
	FailureThreshold    int    `json:"failure_threshold"`
	// The decision.
	Action   Action   `json:"action"`
	Strategy string   `json:"strategy"`
	Message  string   `json:"message"`
	Quality  float64  `json:"quality"`
	Triggers []string `json:"triggers,omitempty"`
	// The agent and its spend; a figure the CLI did not report is not known.
	AgentExit   int     `json:"agent_exit"`
	AgentReason string  `json:"agent_reason"`
	CostUSD     float64 `json:"cost_usd"`
	CostKnown   bool    `json:"cost_known"`
	Tokens      int64   `json:"tokens"`
	TokensKnown bool    `json:"tokens_known"`
	// The reviewer's verdict and score, when it reviewed.
	Review      string  `json:"review,omitempty"`
	ReviewScore float64 `json:"review_score,omitempty"`
	// Recovered marks an event rebuilt from the state's record of the
	// iteration, after a crash between saving the state and writing the event.
	Recovered bool `json:"recovered,omitempty"`
}

// Rollback: the work tree goes back to a checkpoint.
type Rollback struct {
	Checkpoint string `json:"checkpoint"`
	Reason     string `json:"reason,omitempty"` // what it is for ("undo the cut attempt 2"); "" for a rollback to the best checkpoint
}

// Warning: something went wrong that does not stop the run.
type Warning struct {
	Message string `json:"message"`
	// Budget are the limits past their warning mark (80%), when the warning
	// is the budget's.
	Budget []budget.Resource `json:"budget,omitempty"`
	// RateLimitWait is how long the agent's rate limit is waited out, when
	// the warning says a wait starts.
	RateLimitWait Millis `json:"rate_limit_wait_ms,omitempty"`
}

// Escalated: the loop stops to ask a human.
type Escalated struct {
	Reason   string `json:"reason"`
	Question string `json:"question"`
}

// GuidanceReceived: a human answered an escalation while the run waited.
type GuidanceReceived struct {
	Architecture bool `json:"architecture"` // recorded as an architecture decision
}

// HandoffRecorded: a person took part in the run (a resume, guidance, accept,
// abort), with what they said.
type HandoffRecorded struct {
	Handoff
}

// RunFinished: the session ends.
type RunFinished struct {
	Status     Status `json:"status"`
	Reason     string `json:"reason"`
	Iterations int    `json:"iterations"` // all the run's iterations, every session
	Wall       Millis `json:"wall_ms"`
}

// NeedsYou: the run waits for a person; the record says what it asks and
// the command of each answer.
type NeedsYou struct {
	decision.NeedsYou
}

// NotificationSent: a notification reached its receiver.
type NotificationSent struct {
	Notification string `json:"notification"` // its type: needs_you, finished, …
	ID           string `json:"id"`           // the same for every receiver and attempt
	Target       string `json:"target"`       // the receiver, named without secrets ("webhook 127.0.0.1:8080")
	Attempts     int    `json:"attempts"`
	Duration     Millis `json:"duration_ms"`
}

// NotificationFailed: a notification was not delivered, after every attempt
// or because agentloop exited first.
type NotificationFailed struct {
	Notification string `json:"notification"`
	ID           string `json:"id"`
	Target       string `json:"target"`
	Attempts     int    `json:"attempts"`
	Duration     Millis `json:"duration_ms"`
	Error        string `json:"error"`
}

// Message: a progress line of the command around the loop.
type Message struct {
	Text string `json:"text"`
}

// UnknownEvent is an event this version cannot read: a type it does not know or a
// newer schema. It keeps the line's data as it was.
type UnknownEvent struct {
	Schema int
	Type   EventType
	Raw    json.RawMessage
}

// EventType implementations.
func (RunStarted) EventType() EventType         { return EventRunStarted }
func (BaselineStarted) EventType() EventType    { return EventBaselineStarted }
func (BaselineFinished) EventType() EventType   { return EventBaselineFinished }
func (IterationStarted) EventType() EventType   { return EventIterationStarted }
func (IterationFinished) EventType() EventType  { return EventIterationFinished }
func (Rollback) EventType() EventType           { return EventRollback }
func (Warning) EventType() EventType            { return EventWarning }
func (Escalated) EventType() EventType          { return EventEscalated }
func (GuidanceReceived) EventType() EventType   { return EventGuidanceReceived }
func (RunFinished) EventType() EventType        { return EventRunFinished }
func (HandoffRecorded) EventType() EventType    { return EventHandoff }
func (Message) EventType() EventType            { return EventMessage }
func (NeedsYou) EventType() EventType           { return EventNeedsYou }
func (NotificationSent) EventType() EventType   { return EventNotificationSent }
func (NotificationFailed) EventType() EventType { return EventNotificationFailed }
func (u UnknownEvent) EventType() EventType     { return u.Type }

// MarshalJSON implements [UnknownEvent]'s data as it was read.
func (u UnknownEvent) MarshalJSON() ([]byte, error) {
	if len(u.Raw) == 0 {
		return []byte("null"), nil
	}
	return u.Raw, nil
}

// eventLine is an event's JSON encoding: one line of events.jsonl.
type eventLine struct {
	Schema    int             `json:"v,omitempty"`
	Time      time.Time       `json:"time"`
	Type      EventType       `json:"type"`
	Iteration int             `json:"iteration,omitempty"`
	Seq       int             `json:"seq,omitempty"`
	Segment   int             `json:"segment,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
}

// MarshalJSON encodes the event as one line of events.jsonl:
// {"v":2,"time":…,"type":…,"iteration":…,"seq":…,"segment":…,"data":{…}}; data
// is left out when empty, seq and segment when 0.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Data == nil {
		return nil, fmt.Errorf("encode event: no data")
	}
	line := eventLine{Schema: EventSchema, Time: e.Time, Type: e.Data.EventType(), Iteration: e.Iteration, Seq: e.Seq, Segment: e.Segment}
	if u, ok := e.Data.(UnknownEvent); ok {
		line.Schema = u.Schema
	}
	data, err := json.Marshal(e.Data)
	if err != nil {
		return nil, fmt.Errorf("encode event %s: %w", line.Type, err)
	}
	if !bytes.Equal(data, []byte("{}")) && !bytes.Equal(data, []byte("null")) {
		line.Data = data
	}
	return json.Marshal(line)
}

// UnmarshalJSON decodes one line of events.jsonl of any schema up to
// [EventSchema]; an event of an unknown type or a newer schema becomes an
// [UnknownEvent].
func (e *Event) UnmarshalJSON(b []byte) error {
	var line eventLine
	if err := json.Unmarshal(b, &line); err != nil {
		return fmt.Errorf("decode event: %w", err)
	}
	if line.Type == "" {
		return fmt.Errorf("decode event: no type")
	}
	schema := max(line.Schema, 1)
	data, err := decodeEventData(schema, line.Type, line.Data)
	if err != nil {
		return fmt.Errorf("decode event %s: %w", line.Type, err)
	}
	*e = Event{Time: line.Time, Iteration: line.Iteration, Seq: line.Seq, Segment: line.Segment, Data: data}
	return nil
}

// decodeEventData reads an event's data. Schema 1 has the keys of schema 2.
func decodeEventData(schema int, t EventType, raw json.RawMessage) (EventData, error) {
	if schema > EventSchema {
		return UnknownEvent{Schema: schema, Type: t, Raw: raw}, nil
	}
	switch t {
	case EventRunStarted:
		return decodeAs[RunStarted](raw)
	case EventBaselineStarted:
		return decodeAs[BaselineStarted](raw)
	case EventBaselineFinished:
		return decodeAs[BaselineFinished](raw)
	case EventIterationStarted:
		return decodeAs[IterationStarted](raw)
	case EventIterationFinished:
		return decodeAs[IterationFinished](raw)
	case EventRollback:
		return decodeAs[Rollback](raw)
	case EventWarning:
		return decodeAs[Warning](raw)
	case EventEscalated:
		return decodeAs[Escalated](raw)
	case EventGuidanceReceived:
		return decodeAs[GuidanceReceived](raw)
	case EventRunFinished:
		return decodeAs[RunFinished](raw)
	case EventHandoff:
		return decodeAs[HandoffRecorded](raw)
	case EventMessage:
		return decodeAs[Message](raw)
	case EventNeedsYou:
		return decodeAs[NeedsYou](raw)
	case EventNotificationSent:
		return decodeAs[NotificationSent](raw)
	case EventNotificationFailed:
		return decodeAs[NotificationFailed](raw)
	}
	return UnknownEvent{Schema: schema, Type: t, Raw: raw}, nil
}

func decodeAs[T EventData](raw json.RawMessage) (EventData, error) {
	var d T
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return d, nil
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, err
	}
	return d, nil
}
