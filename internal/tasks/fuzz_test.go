package tasks

import (
	"os"
	"path/filepath"
	"testing"
)

func FuzzParseTasks(f *testing.F) {
	seed, _ := os.ReadFile(filepath.Join("testdata", "tasks.yaml"))
	f.Add(seed)
	f.Add([]byte("tasks:\n  - {id: a, title: x, depends_on: [b]}\n  - {id: b, title: y, depends_on: [a]}\n"))
	f.Add([]byte("parallel: 2\nbudget: {max_tokens: 9}\ntasks: []\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ParseYAML("f.yaml", data)
		if err != nil {
			return
		}
		if _, err := Order(file.Tasks); err != nil {
			t.Fatalf("a parsed file does not order: %v", err)
		}
	})
}

func FuzzParseMarkdown(f *testing.F) {
	seed, _ := os.ReadFile(filepath.Join("testdata", "plan.md"))
	f.Add(seed)
	f.Add([]byte("- [ ] A (after: b)\n- [ ] B (id: b)\n  - note\n"))
	f.Add([]byte("```\n- [ ] x\n~~~\n- [x] y (id: y) (after: )\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := ParseMarkdown("p.md", data)
		if err != nil {
			return
		}
		if _, err := Order(ts); err != nil {
			t.Fatalf("a parsed plan does not order: %v", err)
		}
		for _, task := range ts {
			if task.Pos.Line < 1 || !idPattern().MatchString(task.ID) {
				t.Fatalf("task %+v: bad line or id", task)
			}
		}
	})
}
