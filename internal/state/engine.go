package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/runname"
)

// engineFile, in the folder of a run name's runs (runs/NAME/engine), names
// the engine that holds them when it is not the local one.
const engineFile = "engine"

// MarkEngine records that the runs of name in this store are held by another
// engine (engine, e.g. "temporal"): they have no state file here, their state
// is on that engine's server, and what they keep here (run folders,
// checkpoints, a task's worktree and branch) is theirs however old it looks.
// It is written before any of it is made, and goes with the name's run
// folders. Marking a name marked already is a no-op.
func (s Store) MarkEngine(name, engine string) error {
	if err := runname.Check(name); err != nil {
		return err
	}
	if s.EngineOf(name) == engine {
		return nil
	}
	if err := s.EnsureRoot(); err != nil {
		return err
	}
	dir := filepath.Join(s.root(), "runs", name)
	if err := EnsureDir(dir); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, engineFile), []byte(engine+"\n"), FilePerm); err != nil {
		return fmt.Errorf("mark the runs of %s as %s's: %w", name, engine, err)
	}
	return nil
}

// EngineOf is the engine that holds the runs of name ([Store.MarkEngine]), ""
// when none marked them (the local engine's, or none).
func (s Store) EngineOf(name string) string {
	if runname.Check(name) != nil {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(s.root(), "runs", name, engineFile))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Engines are the run names of the store another engine holds, each with that
// engine ([Store.MarkEngine]).
func (s Store) Engines() (map[string]string, error) {
	names, err := os.ReadDir(filepath.Join(s.root(), "runs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the runs: %w", err)
	}
	out := map[string]string{}
	for _, n := range names {
		if !n.IsDir() {
			continue
		}
		if e := s.EngineOf(n.Name()); e != "" {
			out[n.Name()] = e
		}
	}
	return out, nil
}
