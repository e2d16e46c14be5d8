package tasks

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The task file README.md shows parses, and its task with gates and limits
// has them.
func TestReadmeTaskFile(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n# tasks.yaml\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("README.md has no ```yaml block starting '# tasks.yaml'")
	}
	f, err := ParseYAML("README.md", m[1])
	if err != nil {
		t.Fatalf("README.md's tasks.yaml: %v", err)
	}
	withGates := 0
	for _, task := range f.Tasks {
		if len(task.Gates) > 0 && task.Limits != nil {
			withGates++
		}
	}
	if withGates == 0 {
		t.Error("README.md's tasks.yaml shows no task with its own gates: and limits:")
	}
}
