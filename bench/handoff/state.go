package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/agentloop/agentloop/bench/internal/harness"
)

// handoffEvents counts the hand-off events of a run's events.jsonl by kind and text.
func handoffEvents(path string) map[string]int {
	out := map[string]int{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev struct {
			Type string          `json:"type"`
			Data harness.Handoff `json:"data"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "handoff" {
			out[ev.Data.Kind+"\x00"+ev.Data.Text]++
		}
	}
	return out
}

// eventCount counts the events of a type in a run's events.jsonl.
func eventCount(path, typ string) int {
	n := 0
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == typ {
			n++
		}
	}
	return n
}

func runDir(repo, name, runID string) string {
	return filepath.Join(repo, ".agentloop", "runs", name, runID)
}
