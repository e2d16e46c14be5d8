package double

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/internal/yamlnode"
)

// ErrInvalidScenario is wrapped by every error of a scenario a user must fix.
var ErrInvalidScenario = errors.New("invalid scenario")

// ScenarioError is one problem in a scenario, at a place, written as the
// configuration's problems are: file:line:col: key: what is wrong.
type ScenarioError struct {
	File         string
	Line, Column int    // 1-based; 0 when unknown
	Key          string // e.g. turns[0].fault
	Msg          string
}

func (e *ScenarioError) Error() string {
	return yamlnode.Problem(e.File, e.Line, e.Column, e.Key, e.Msg)
}

// problem is what a decoded part of a scenario says is wrong with it, "" when
// nothing is.
type problem interface{ problem() string }

// maxProblems is how many problems an error lists.
const maxProblems = 50

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// ParseScenario reads a scenario from YAML, file naming it in messages. Every
// problem is reported at once, each at file:line:col: unknown keys (with the
// closest known one), values of the wrong kind, a fault without a status and
// the like; such errors wrap [ErrInvalidScenario].
func ParseScenario(file string, b []byte) (*Scenario, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		e := &ScenarioError{File: file, Line: 1, Column: 1, Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
		if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Msg = "not valid YAML: " + m[2]
		} else {
			// The parser names no line when it runs out of input looking for the
			// end of a construct: the problem shows at the last line.
			e.Line = max(1, strings.Count(strings.TrimRight(string(b), "\n"), "\n")+1)
		}
		return nil, fmt.Errorf("%w:\n%w", ErrInvalidScenario, e)
	}
	var s Scenario
	if len(doc.Content) == 0 {
		e := &ScenarioError{File: file, Line: 1, Column: 1, Msg: "the scenario is empty: write its turns: (each with text, shell, write, calls, usage or fault)"}
		return nil, fmt.Errorf("%w:\n%w", ErrInvalidScenario, e)
	}
	c := &checker{file: file}
	root := doc.Content[0]
	c.value(root, reflect.TypeFor[Scenario](), "")
	if len(c.errs) == 0 {
		if err := root.Decode(&s); err != nil {
			c.fail(root, "", "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
	}
	if len(c.errs) > 0 {
		errs := c.errs
		if n := len(errs); n > maxProblems {
			errs = append(errs[:maxProblems:maxProblems], fmt.Errorf("… and %d more problems", n-maxProblems))
		}
		return nil, fmt.Errorf("%w (fix these and run again):\n%w", ErrInvalidScenario, errors.Join(errs...))
	}
	return &s, nil
}

// checker walks a scenario's nodes along the Go type they decode into.
type checker struct {
	file string
	errs []error
}

func (c *checker) fail(n *yaml.Node, key, format string, args ...any) {
	c.errs = append(c.errs, &ScenarioError{File: c.file, Line: n.Line, Column: n.Column, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// value checks node n against type t; key is its dotted path.
func (c *checker) value(n *yaml.Node, t reflect.Type, key string) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return // an empty value leaves the field unset
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		c.mapping(n, t, key)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			c.fail(n, key, "expected a list, got %s", yamlnode.Kind(n))
			return
		}
		for i, item := range n.Content {
			c.value(item, t.Elem(), fmt.Sprintf("%s[%d]", key, i))
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			c.fail(n, key, "expected a mapping, got %s", yamlnode.Kind(n))
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			c.fail(n, key, "expected a string, got %s", yamlnode.Kind(n))
		}
	case reflect.Int:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			c.fail(n, key, "expected a whole number, got %s", yamlnode.Kind(n))
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			c.fail(n, key, "expected true or false, got %s", yamlnode.Kind(n))
		}
	}
}

// mapping checks a mapping against the struct t: its keys are the fields' yaml
// names, and once the fields are right, what the struct itself needs.
func (c *checker) mapping(n *yaml.Node, t reflect.Type, key string) {
	if n.Kind != yaml.MappingNode {
		c.fail(n, key, "expected a mapping (%s), got %s", strings.Join(fieldNames(t), ", "), yamlnode.Kind(n))
		return
	}
	fields := map[string]reflect.Type{}
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" && name != "-" {
			fields[name] = f.Type
		}
	}
	before := len(c.errs)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		ft, ok := fields[k.Value]
		if !ok {
			if near := suggest.Closest(k.Value, fieldNames(t)); near != "" {
				c.fail(k, key, "unknown key %q; did you mean %q?", k.Value, near)
			} else {
				c.fail(k, key, "unknown key %q; expected one of %s", k.Value, strings.Join(fieldNames(t), ", "))
			}
			continue
		}
		c.value(v, ft, yamlnode.Path(key, k.Value))
	}
	if len(c.errs) > before {
		return
	}
	p := reflect.New(t)
	if _, ok := p.Interface().(problem); !ok {
		return
	}
	if err := n.Decode(p.Interface()); err != nil {
		c.fail(n, key, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		return
	}
	if msg := p.Interface().(problem).problem(); msg != "" {
		c.fail(n, key, "%s", msg)
	}
}

// fieldNames are the yaml names of t's fields, sorted.
func fieldNames(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
