package tasks

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The task file docs/task-graphs.md shows parses, and its task with gates and limits
// has them.
func TestDocumentedTaskFile(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "task-graphs.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n# tasks.yaml\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/task-graphs.md has no ```yaml block starting '# tasks.yaml'")
	}
	f, err := ParseYAML("docs/task-graphs.md", m[1])
	if err != nil {
		t.Fatalf("docs/task-graphs.md's tasks.yaml: %v", err)
	}
	withGates := 0
	for _, task := range f.Tasks {
		if len(task.Gates) > 0 && task.Limits != nil {
			withGates++
		}
	}
	if withGates == 0 {
		t.Error("docs/task-graphs.md's tasks.yaml shows no task with its own gates: and limits:")
	}
}
