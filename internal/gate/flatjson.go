package gate

import (
	"encoding/json"
	"strconv"

	"github.com/agentloop/agentloop/internal/jsonscan"
)

// goEvent is one line of go test -json (test2json) or go build -json.
type goEvent struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Output      string
	FailedBuild string
	Elapsed     float64
}

// eventDecoder decodes go test -json lines. It scans flat objects itself, which is
// several times faster than encoding/json on the millions of small events of a big
// run, reuses the package and test strings of the previous event, and falls back
// to encoding/json for anything it does not expect.
type eventDecoder struct{ pkg, test string }

func (d *eventDecoder) decode(line []byte, ev *goEvent) bool {
	*ev = goEvent{}
	if ok := d.scanFlat(line, ev); ok {
		return true
	}
	*ev = goEvent{}
	return json.Unmarshal(line, ev) == nil
}

// intern returns *last when it equals b, else a new string stored in *last.
func intern(last *string, b []byte) string {
	if string(b) != *last {
		*last = string(b)
	}
	return *last
}

func actionName(b []byte) string {
	switch string(b) {
	case "output":
		return "output"
	case "run":
		return "run"
	case "pass":
		return "pass"
	case "fail":
		return "fail"
	case "skip":
		return "skip"
	case "start":
		return "start"
	case "pause":
		return "pause"
	case "cont":
		return "cont"
	case "build-output":
		return "build-output"
	case "build-fail":
		return "build-fail"
	}
	return string(b)
}

// scanFlat reads the members of an event it needs in one pass over the line;
// false sends the line to encoding/json (a malformed one, most likely).
func (d *eventDecoder) scanFlat(b []byte, ev *goEvent) bool {
	m := jsonscan.NewMembers(b)
	for {
		key, val, str, ok := m.Next()
		if !ok {
			return m.Valid()
		}
		if !str {
			if string(key) == "Elapsed" {
				f, err := strconv.ParseFloat(string(val), 64)
				if err != nil {
					return false
				}
				ev.Elapsed = f
			}
			continue
		}
		switch string(key) {
		case "Action":
			ev.Action = actionName(val)
		case "Package":
			ev.Package = intern(&d.pkg, val)
		case "ImportPath":
			ev.ImportPath = string(val)
		case "Test":
			ev.Test = intern(&d.test, val)
		case "Output":
			ev.Output = string(val)
		case "FailedBuild":
			ev.FailedBuild = string(val)
		}
	}
}
