package graph

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/textcut"
)

var nameChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_-]+`) })

// Name is the name of the task graph of a task file: its base name without
// the extension, in the characters a run name may hold.
func Name(taskFile string) string {
	name := strings.Trim(nameChars().ReplaceAllString(strings.TrimSuffix(filepath.Base(taskFile), filepath.Ext(taskFile)), "-"), "-")
	if name == "" {
		name = "tasks"
	}
	return name
}

// StatePath is where the state of the task graph of a name is kept.
func StatePath(stateDir, name string) string {
	return filepath.Join(stateDir, "graphs", name+".json")
}

// EventsPath is where the events of the task graph of a name are kept: what
// concerns the graph rather than one task's run (the deliveries of its
// notifications).
func EventsPath(stateDir, name string) string {
	return filepath.Join(stateDir, "graphs", name+".events.jsonl")
}

// relTo is path relative to repo when it is inside it.
func relTo(repo, path string) string {
	if r, err := filepath.Rel(repo, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// firstLine is the first line of s, cut to 72 bytes.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return textcut.Bytes(line, 72)
}

func pluralize(n int, w string) string {
	if n == 1 {
		return w
	}
	return w + "s"
}
