package state

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// A state file carries the schema version of the build that wrote it
// ([StateVersion]). Load upgrades an older file one version at a time with
// the steps of [migrations], in memory; the next Save writes the current version.
// A file of a newer version is refused with a [*NewerError] and left in place,
// so that the newer agentloop that wrote it can still resume it.
//
// To change the shape of [State]: raise StateVersion to N+1, append a
// step {from: N, up: …} to [migrations] that rewrites a version-N document into
// the new shape (rename keys, fill new ones, convert values), and keep a state
// file written by the version-N build in testdata/vN-*.json: the tests load
// every kept file, resume from it and save it as the current version.

// migration upgrades a decoded state document of schema version from to
// version from+1. It edits doc in place; the version key is set for it.
type migration struct {
	from int
	up   func(doc map[string]any) error
}

// migrations are the upgrades from every older schema version, oldest first:
// the step from N is at index N-1, and the last one ends at StateVersion.
func migrations() []migration {
	return []migration{{from: 1, up: upFrom1}}
}

// upFrom1: schema 2 numbers agent attempts run-wide and marks segments. A
// version-1 run's attempts were its iterations and cut iterations (its folders,
// named by the iteration in its segment, are all numbered below that); its
// segments are told by the iteration counter starting again. Its history stays
// in the document until the next save moves it to the run's log.
func upFrom1(doc map[string]any) error {
	hist, _ := doc["history"].([]any)
	cut, _ := doc["interrupted"].([]any)
	total := num(doc["total_iterations"])
	doc["attempts"] = max(total, int64(len(hist))) + int64(len(cut))
	seg, prev := int64(1), int64(0)
	for _, h := range hist {
		r, ok := h.(map[string]any)
		if !ok {
			continue
		}
		n := num(r["n"])
		if prev > 0 && n <= prev {
			seg++
		}
		prev = n
		r["segment"] = seg
	}
	if len(hist) > 0 || doc["guidance"] != nil && doc["guidance"] != "" {
		if g, _ := doc["guidance"].(string); g != "" && len(hist) > 0 && num(doc["iteration"]) < prev {
			seg++ // guidance given after the last record: its segment has none yet
		}
	}
	doc["segment"] = seg
	if last := len(hist); last > 0 {
		if r, ok := hist[last-1].(map[string]any); ok {
			doc["last_decision"] = r["decision"]
		}
	}
	delete(doc, "elapsed_per_iteration_ms")
	return nil
}

// num reads a JSON number of a decoded document (0 when it is not one).
func num(v any) int64 {
	switch n := v.(type) {
	case json.Number:
		i, _ := n.Int64()
		return i
	case float64:
		return int64(n)
	}
	return 0
}

// NewerError is returned by [Store.Load] for a state file written by a newer
// agentloop: this build cannot read it, and it is left where it is.
type NewerError struct {
	Path    string
	Version int // the file's schema version
	Max     int // the newest this build reads
}

func (e *NewerError) Error() string {
	return fmt.Sprintf("state file %s was written by a newer agentloop (schema %d, this one reads up to %d): upgrade agentloop", e.Path, e.Version, e.Max)
}

// schemaVersion reads the version key of a state file; ok is false when the
// file is not a JSON object with a whole-number version.
func schemaVersion(data []byte) (int, bool) {
	var head struct {
		Version *int `json:"version"`
	}
	if json.Unmarshal(data, &head) != nil || head.Version == nil {
		return 0, false
	}
	return *head.Version, true
}

// upgrade rewrites a state document of schema version from into version to,
// through the steps of table.
func upgrade(data []byte, from, to int, table []migration) ([]byte, error) {
	if from == to {
		return data, nil
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber() // keep integers exact through the round trip
	var doc map[string]any
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("upgrade state from schema %d: %w", from, err)
	}
	for v := from; v < to; v++ {
		i := v - 1
		if i < 0 || i >= len(table) || table[i].from != v {
			return nil, fmt.Errorf("upgrade state from schema %d: this build has no upgrade from schema %d", from, v)
		}
		if err := table[i].up(doc); err != nil {
			return nil, fmt.Errorf("upgrade state from schema %d to %d: %w", v, v+1, err)
		}
		doc["version"] = v + 1
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("upgrade state from schema %d: %w", from, err)
	}
	return out, nil
}

// current brings a state file to the schema this build writes: unchanged when
// it is current, upgraded when it is older; a [*NewerError] when it is newer.
// Content that is not a state document is returned as is, for parse to explain.
func current(path string, data []byte) ([]byte, error) {
	v, ok := schemaVersion(data)
	switch {
	case !ok || v < 1 || v == StateVersion:
		return data, nil
	case v > StateVersion:
		return nil, &NewerError{Path: path, Version: v, Max: StateVersion}
	}
	return upgrade(data, v, StateVersion, migrations())
}
