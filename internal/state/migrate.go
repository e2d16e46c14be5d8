package state

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentloop/agentloop/internal/loop"
)

// A state file carries the schema version of the build that wrote it
// ([loop.StateVersion]). Load upgrades an older file one version at a time with
// the steps of [migrations], in memory; the next Save writes the current version.
// A file of a newer version is refused with a [*NewerError] and left in place,
// so that the newer agentloop that wrote it can still resume it.
//
// To change the shape of [loop.State]: raise loop.StateVersion to N+1, append a
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
// the step from N is at index N-1, and the last one ends at loop.StateVersion.
// Schema 1 is the first version, so there is none yet.
func migrations() []migration { return nil }

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
	case !ok || v < 1 || v == loop.StateVersion:
		return data, nil
	case v > loop.StateVersion:
		return nil, &NewerError{Path: path, Version: v, Max: loop.StateVersion}
	}
	return upgrade(data, v, loop.StateVersion, migrations())
}
