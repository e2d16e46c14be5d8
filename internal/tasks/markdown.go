package tasks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

var (
	checkItem  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*)(?:[-*+]|\d+[.)])\s+\[([ xX])\]\s+(.*)$`) })
	anyItem    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*)(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*)$`) })
	annotation = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*\((id|after):\s*([^()]*)\)\s*$`) })
	slugDrop   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })
)

// ParseMarkdown turns a Markdown checklist plan into tasks; see the package
// documentation of the format above. Errors name file:line.
func ParseMarkdown(path string, data []byte) ([]Task, error) {
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: plan is larger than %d bytes", path, MaxFileSize)
	}
	var (
		ts      []Task
		errs    []error
		fence   string
		indent  = -1 // indentation of the task items
		current = -1 // index of the task notes go to
		used    = map[string]bool{}
	)
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i, line := range lines {
		pos := Pos{File: path, Line: i + 1}
		trim := strings.TrimSpace(line)
		if f := fenceOf(trim); f != "" && (fence == "" || strings.HasPrefix(trim, fence)) {
			if fence == "" {
				fence = f
			} else {
				fence = ""
			}
			continue
		}
		if fence != "" || trim == "" {
			continue
		}
		lead := len(line) - len(strings.TrimLeft(line, " \t"))
		if m := checkItem().FindStringSubmatch(line); m != nil && (indent < 0 || lead <= indent) {
			indent = lead
			t, err := markdownTask(pos, m[2], m[3], used)
			if err != nil {
				errs = append(errs, err)
			}
			ts = append(ts, t)
			current = len(ts) - 1
			continue
		}
		if current >= 0 && lead > indent {
			note := trim
			if m := anyItem().FindStringSubmatch(line); m != nil {
				note = m[2]
			}
			ts[current].Notes = append(ts[current].Notes, note)
			continue
		}
		current = -1 // a heading, a paragraph or a plain bullet ends the notes
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(ts) == 0 {
		return nil, errAt(Pos{File: path}, "no checklist items: write tasks as \"- [ ] title\" lines")
	}
	if err := Validate(ts); err != nil {
		return nil, err
	}
	return ts, nil
}

func fenceOf(trim string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(trim, f) {
			return f
		}
	}
	return ""
}

// markdownTask builds a task from a checklist item's mark and text.
func markdownTask(pos Pos, mark, text string, used map[string]bool) (Task, error) {
	t := Task{Pos: pos, Done: mark != " "}
	for {
		m := annotation().FindStringSubmatchIndex(text)
		if m == nil {
			break
		}
		key, val := text[m[2]:m[3]], strings.TrimSpace(text[m[4]:m[5]])
		text = text[:m[0]]
		switch key {
		case "id":
			if !idPattern().MatchString(val) {
				return t, errAt(pos, "id %q: use letters, digits, '.', '_' and '-'", val)
			}
			t.ID = val
		case "after":
			for _, d := range strings.Split(val, ",") {
				if d = strings.TrimSpace(d); d != "" {
					t.DependsOn = append(t.DependsOn, d)
				}
			}
		}
	}
	t.Title = strings.TrimSpace(text)
	if t.Title == "" {
		return t, errAt(pos, "checklist item without a title")
	}
	if t.ID == "" {
		base := slug(t.Title)
		t.ID = base
		for n := 2; used[t.ID]; n++ {
			t.ID = fmt.Sprintf("%s-%d", base, n)
		}
	}
	used[t.ID] = true
	return t, nil
}

// slug makes an id from a title: lower case, words joined by '-', at most 40 bytes.
func slug(title string) string {
	s := strings.Trim(slugDrop().ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		s = "task"
	}
	return s
}

// TickMarkdown marks the unchecked checklist item on the 1-based line of a plan
// as done ("[ ]" → "[x]"), rewriting the file atomically and changing nothing
// else. Ticking an item already ticked is a no-op.
func TickMarkdown(path string, line int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("tick plan item: %w", err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return fmt.Errorf("tick plan item: %s has no line %d", path, line)
	}
	l := lines[line-1]
	m := checkItem().FindSubmatchIndex(bytes.TrimRight(l, "\r\n"))
	if m == nil {
		return fmt.Errorf("tick plan item: %s:%d is not a checklist item (was the plan edited?)", path, line)
	}
	if l[m[4]] != ' ' {
		return nil
	}
	fixed := bytes.Clone(l)
	fixed[m[4]] = 'x'
	lines[line-1] = fixed
	return writeAtomic(path, bytes.Join(lines, nil))
}

// writeAtomic replaces a file by a temp file in the same folder, synced, renamed,
// keeping the file's permissions.
func writeAtomic(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("tick plan item: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("tick plan item: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("tick plan item: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("tick plan item: sync: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("tick plan item: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("tick plan item: %w", err)
	}
	return nil
}
