package state

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/agentloop/agentloop/internal/runname"
)

// A run folder is append-only: nothing in it is ever written over. Each agent
// attempt has a folder of its own, numbered by the run-wide attempt sequence
// ([State.Attempts]); each escalation a report of its own, numbered by its
// segment (and, when a segment escalates again, by its place in the segment);
// a baseline run again after a crash a folder of its own.

// HistoryFile is the run folder's append-only log of the run's history.
const HistoryFile = "history.jsonl"

// The files of an attempt's folder ([IterDir]) that reports read back: the
// reviewer's verdict with its reasons, the decision on the attempt with its
// triggers, and the agent's final answer, its own words.
const (
	ReviewFile   = "review.json"
	DecisionFile = "decision.yaml"
	AnswerFile   = "answer.md"
)

// EscalationFiles are the escalation report of a run's segment: Markdown for
// people, YAML for programs (escalation-001.md, escalation-001.yaml).
func EscalationFiles(runDir string, segment int) (md, yml string) {
	return EscalationFilesOf(runDir, segment, 1)
}

// EscalationFilesOf are the report of the k-th escalation of a segment (k
// from 1): a segment escalates again when its run is resumed without guidance
// after it escalated (an abort, a session cut before it wrote its report).
// The first is escalation-002.md, the next escalation-002-2.md.
func EscalationFilesOf(runDir string, segment, k int) (md, yml string) {
	base := filepath.Join(runDir, fmt.Sprintf("escalation-%03d", max(segment, 1)))
	if k > 1 {
		base += fmt.Sprintf("-%d", k)
	}
	return base + ".md", base + ".yaml"
}

// EscalationFile is the Markdown report of one of a run's escalations.
type EscalationFile struct {
	Segment int    // the segment it ended; 0 for the single report of an older build
	K       int    // its place among the segment's escalations, from 1
	Path    string // the escalation-NNN.md file
}

// Escalations lists the Markdown reports of a run's escalations, in order;
// none when it never escalated. A run folder of an older build has a single
// escalation.md.
func Escalations(runDir string) []EscalationFile {
	all, _ := filepath.Glob(filepath.Join(runDir, "escalation-*.md"))
	var out []EscalationFile
	for _, p := range all {
		var seg, k int
		name := filepath.Base(p)
		if _, err := fmt.Sscanf(name, "escalation-%d-%d.md", &seg, &k); err == nil && seg > 0 && k > 1 {
			out = append(out, EscalationFile{Segment: seg, K: k, Path: p})
		} else if _, err := fmt.Sscanf(name, "escalation-%d.md", &seg); err == nil && seg > 0 {
			out = append(out, EscalationFile{Segment: seg, K: 1, Path: p})
		}
	}
	if len(out) == 0 {
		if p := filepath.Join(runDir, "escalation.md"); fileExists(p) {
			return []EscalationFile{{Path: p}}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Segment != out[j].Segment {
			return out[i].Segment < out[j].Segment
		}
		return out[i].K < out[j].K
	})
	return out
}

// LatestEscalation is the Markdown report of a run's last escalation, "" when
// it never escalated.
func LatestEscalation(runDir string) string {
	all := Escalations(runDir)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1].Path
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// NewAttemptDir creates the folder of agent attempt seq in a run folder
// ([IterDir]). When it exists already — a step run again after its worker
// died, on an engine whose steps are retried as they were — the earlier try's
// folder is moved aside whole, to iter-NNN.retry-K, so that nothing it wrote
// is written over.
func NewAttemptDir(runDir string, seq int) (string, error) {
	dir := IterDir(runDir, seq)
	err := os.Mkdir(dir, DirPerm)
	if errors.Is(err, fs.ErrNotExist) {
		if err := EnsureDir(runDir); err != nil {
			return "", err
		}
		err = os.Mkdir(dir, DirPerm)
	}
	if errors.Is(err, fs.ErrExist) {
		for k := 1; ; k++ {
			aside := fmt.Sprintf("%s.retry-%d", dir, k)
			if fileExists(aside) {
				continue
			}
			if err := os.Rename(dir, aside); err != nil {
				return "", fmt.Errorf("move the earlier try of %s aside: %w", dir, err)
			}
			break
		}
		err = os.Mkdir(dir, DirPerm)
	}
	if err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	return dir, nil
}

// NewDir creates the folder base, or, when base exists already (a step run
// again after a crash), base-2, base-3, …, and returns the one created.
func NewDir(base string) (string, error) {
	if err := EnsureDir(filepath.Dir(base)); err != nil {
		return "", err
	}
	dir := base
	for k := 2; ; k++ {
		err := os.Mkdir(dir, DirPerm)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("create %s: %w", dir, err)
		}
		dir = fmt.Sprintf("%s-%d", base, k)
	}
}

// WriteFileOnce writes a record that is never written over: a new file at
// path, complete or absent even after a crash (written to a temporary file,
// then linked into place). A file already there with the same content (the
// same record written again by a step run twice) is left as it is; one with
// other content is an error and stays.
func WriteFileOnce(path string, data []byte, perm os.FileMode) error {
	if old, err := os.ReadFile(path); err == nil {
		if bytes.Equal(old, data) {
			return nil
		}
		return fmt.Errorf("write %s: a different record is there already; it is kept", path)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(perm); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return WriteFileOnce(path, data, perm)
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// RunIDs lists the runs of the name in the store, oldest first (a run id
// starts with the time it started): the current one and every earlier run
// of the same name whose folder is kept.
func (s Store) RunIDs(name string) ([]string, error) {
	if err := runname.Check(name); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(s.root(), "runs", name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the runs of %s: %w", name, err)
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && runname.Check(e.Name()) == nil {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	return ids, nil
}
