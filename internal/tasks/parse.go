package tasks

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// MaxFileSize bounds a task file or plan read into memory.
const MaxFileSize = 4 << 20

// idPattern is what a task id may be: it names a branch and a folder.
var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// Load reads and parses a task file: tasks.yaml, or a Markdown plan (.md).
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the task file: %w", err)
	}
	if strings.HasSuffix(strings.ToLower(path), ".md") || strings.HasSuffix(strings.ToLower(path), ".markdown") {
		ts, err := ParseMarkdown(path, data)
		if err != nil {
			return nil, err
		}
		return &File{Path: path, Tasks: ts}, nil
	}
	return ParseYAML(path, data)
}

// ParseYAML parses a task file strictly: unknown keys, wrong types and an invalid
// graph are errors that name file:line:col; every problem found is reported.
func ParseYAML(path string, data []byte) (*File, error) {
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: task file is larger than %d bytes", path, MaxFileSize)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(path, err)
	}
	p := &parser{path: path}
	f := &File{Path: path}
	if len(doc.Content) == 0 {
		return nil, errAt(Pos{File: path, Line: 1}, "empty task file: want a mapping with a tasks: list")
	}
	root := doc.Content[0]
	sawTasks := false
	p.mapping(root, "the task file", func(key string, k, v *yaml.Node) {
		switch key {
		case "tasks":
			sawTasks = true
			if p.kind(v, yaml.SequenceNode, "tasks: a list of tasks") {
				for _, n := range v.Content {
					f.Tasks = append(f.Tasks, p.task(n))
				}
				if len(v.Content) == 0 {
					p.errorf(v, "no tasks: the tasks: list is empty")
				}
			}
		case "parallel":
			f.Parallel = int(p.int(v, "parallel", 0, 1024))
		case "budget":
			p.mapping(v, "budget", func(key string, k, v *yaml.Node) {
				switch key {
				case "max_cost_usd":
					f.Budget.MaxCostUSD = p.float(v, key)
				case "max_tokens":
					f.Budget.MaxTokens = p.int(v, key, 0, 1<<62)
				default:
					p.unknown(k, key, "budget", "max_cost_usd, max_tokens")
				}
			})
		default:
			p.unknown(k, key, "the task file", "tasks, parallel, budget")
		}
	})
	if !sawTasks && len(p.errs) == 0 {
		p.errs = append(p.errs, errAt(p.pos(root), "no tasks: list"))
	}
	if len(p.errs) == 0 {
		if err := Validate(f.Tasks); err != nil {
			return nil, err
		}
	}
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return f, nil
}

type parser struct {
	path string
	errs []error
}

func (p *parser) pos(n *yaml.Node) Pos { return Pos{File: p.path, Line: n.Line, Col: n.Column} }

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, errAt(p.pos(n), format, args...))
}

func (p *parser) kind(n *yaml.Node, k yaml.Kind, want string) bool {
	if n.Kind == yaml.AliasNode {
		p.errorf(n, "aliases are not supported here: write %s", want)
		return false
	}
	if n.Kind != k {
		p.errorf(n, "want %s", want)
		return false
	}
	return true
}

// mapping walks a mapping node's keys in order, rejecting duplicates.
func (p *parser) mapping(n *yaml.Node, what string, each func(key string, k, v *yaml.Node)) {
	if !p.kind(n, yaml.MappingNode, what+": a mapping") {
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			p.errorf(k, "%s: keys must be plain words", what)
			continue
		}
		if seen[k.Value] {
			p.errorf(k, "%s: %s is given twice", what, k.Value)
			continue
		}
		seen[k.Value] = true
		each(k.Value, k, v)
	}
}

func (p *parser) unknown(k *yaml.Node, key, where, known string) {
	p.errorf(k, "unknown key %q in %s (known: %s)", key, where, known)
}

func (p *parser) str(n *yaml.Node, what string) string {
	if !p.kind(n, yaml.ScalarNode, what+": a string") {
		return ""
	}
	if n.Tag == "!!null" {
		return ""
	}
	return n.Value
}

func (p *parser) int(n *yaml.Node, what string, lo, hi int64) int64 {
	if !p.kind(n, yaml.ScalarNode, what+": a whole number") {
		return 0
	}
	var v int64
	if err := n.Decode(&v); err != nil || n.Tag != "!!int" {
		p.errorf(n, "%s: want a whole number, got %q", what, n.Value)
		return 0
	}
	if v < lo || v > hi {
		p.errorf(n, "%s: %d is out of range %d..%d", what, v, lo, hi)
		return 0
	}
	return v
}

func (p *parser) float(n *yaml.Node, what string) float64 {
	if !p.kind(n, yaml.ScalarNode, what+": a number") {
		return 0
	}
	var v float64
	if err := n.Decode(&v); err != nil || (n.Tag != "!!int" && n.Tag != "!!float") || v < 0 || v != v {
		p.errorf(n, "%s: want a number ≥ 0, got %q", what, n.Value)
		return 0
	}
	return v
}

func (p *parser) bool(n *yaml.Node, what string) bool {
	var v bool
	if !p.kind(n, yaml.ScalarNode, what+": true or false") {
		return false
	}
	if err := n.Decode(&v); err != nil || n.Tag != "!!bool" {
		p.errorf(n, "%s: want true or false, got %q", what, n.Value)
	}
	return v
}

func (p *parser) duration(n *yaml.Node, what string) time.Duration {
	if !p.kind(n, yaml.ScalarNode, what+": a duration such as 30m") {
		return 0
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil || d < 0 {
		p.errorf(n, "%s: want a duration such as 90s, 30m or 2h, got %q", what, n.Value)
		return 0
	}
	return d
}

// strings reads a list of strings; a single string is a list of one.
func (p *parser) strings(n *yaml.Node, what string) []string {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		return []string{n.Value}
	}
	if !p.kind(n, yaml.SequenceNode, what+": a list of strings") {
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		if s := p.str(c, what); s != "" {
			out = append(out, s)
		} else if c.Kind == yaml.ScalarNode {
			p.errorf(c, "%s: empty entry", what)
		}
	}
	return out
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: (?:line (\d+): )?`) })

// yamlError rewrites the YAML library's "yaml: line N: msg" as "path:N: msg".
func yamlError(path string, err error) error {
	msg := err.Error()
	m := yamlLine().FindStringSubmatch(msg)
	if m == nil {
		return fmt.Errorf("%s: %s", path, msg)
	}
	msg = msg[len(m[0]):]
	if m[1] == "" {
		return fmt.Errorf("%s: %s", path, msg)
	}
	return fmt.Errorf("%s:%s: %s", path, m[1], msg)
}
