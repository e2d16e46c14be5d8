package decide

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Check is the `iteration_check` document: where a task stands after
// an iteration, and optionally the checks of its earlier iterations.
type Check struct {
	TaskID           string
	CurrentIteration int
	MaxIterations    int // 0 when the document does not say
	Test             TestResult
	Review           ReviewResult
	History          []Check // earlier checks, oldest first
}

// TestResult is the test outcome of an iteration.
type TestResult struct {
	Status string // pass | fail
	Output string
}

// ReviewResult is the reviewer's outcome of an iteration.
type ReviewResult struct {
	Status   string // approve | reject | pending
	Feedback string
}

// MaxCheckBytes is the largest iteration_check document [ParseCheck] reads, so
// a hostile input cannot make parsing costly.
const MaxCheckBytes = 1 << 20

// maxHistoryItems bounds the history of a document.
const maxHistoryItems = 100

// ParseCheck reads an `iteration_check` YAML document strictly: unknown keys,
// missing required keys, wrong types and unknown statuses are errors that name the
// line and column.
func ParseCheck(data []byte) (Check, error) {
	if len(data) > MaxCheckBytes {
		return Check{}, fmt.Errorf("parse iteration_check: document is %d bytes, over the %d limit", len(data), MaxCheckBytes)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Check{}, fmt.Errorf("parse iteration_check: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return Check{}, errors.New("parse iteration_check: empty document; expected a mapping with the key iteration_check")
	}
	root := doc.Content[0]
	var c Check
	found := false
	err := mapping(root, func(k string, v *yaml.Node) error {
		if k != "iteration_check" {
			return unknown(v, k, "iteration_check")
		}
		found = true
		var err error
		c, err = parseOne(v, true)
		return err
	})
	if err == nil && !found {
		err = posErr(root, "missing key iteration_check")
	}
	if err != nil {
		return Check{}, fmt.Errorf("parse iteration_check: %w", err)
	}
	return c, nil
}

var checkKeys = []string{"task_id", "current_iteration", "max_iterations", "test_result", "review_result", "history"}

func parseOne(n *yaml.Node, top bool) (Check, error) {
	c := Check{Review: ReviewResult{Status: "pending"}}
	seen := map[string]bool{}
	err := mapping(n, func(k string, v *yaml.Node) error {
		seen[k] = true
		var err error
		switch k {
		case "task_id":
			c.TaskID, err = str(v)
		case "current_iteration":
			c.CurrentIteration, err = integer(v, 1)
		case "max_iterations":
			c.MaxIterations, err = integer(v, 0)
		case "test_result":
			err = mapping(v, func(k string, v *yaml.Node) error {
				switch k {
				case "status":
					return enum(v, &c.Test.Status, "pass", "fail")
				case "output":
					var err error
					c.Test.Output, err = str(v)
					return err
				}
				return unknown(v, k, "status, output")
			})
			if err == nil && c.Test.Status == "" {
				err = posErr(v, "test_result: missing key status (pass or fail)")
			}
		case "review_result":
			err = mapping(v, func(k string, v *yaml.Node) error {
				switch k {
				case "status":
					return enum(v, &c.Review.Status, "approve", "reject", "pending")
				case "feedback":
					var err error
					c.Review.Feedback, err = str(v)
					return err
				}
				return unknown(v, k, "status, feedback")
			})
		case "history":
			if !top {
				return posErr(v, "history inside history is not allowed")
			}
			c.History, err = history(v)
		default:
			return unknown(v, k, strings.Join(checkKeys, ", "))
		}
		return err
	})
	if err != nil {
		return Check{}, err
	}
	for _, req := range []string{"task_id", "current_iteration", "test_result"} {
		if !seen[req] && (top || req != "task_id") {
			return Check{}, posErr(n, "missing key "+req)
		}
	}
	return c, nil
}

func history(n *yaml.Node) ([]Check, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, posErr(n, "history: expected a list of earlier checks")
	}
	if len(n.Content) > maxHistoryItems {
		return nil, posErr(n, fmt.Sprintf("history: %d entries, over the limit of %d", len(n.Content), maxHistoryItems))
	}
	var out []Check
	for _, item := range n.Content {
		c, err := parseOne(item, false)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// mapping calls fn for each key of a mapping node, rejecting duplicates.
func mapping(n *yaml.Node, fn func(k string, v *yaml.Node) error) error {
	if n.Kind == yaml.AliasNode {
		return posErr(n, "aliases are not allowed")
	}
	if n.Kind != yaml.MappingNode {
		return posErr(n, "expected a mapping, got "+kind(n))
	}
	var seen []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return posErr(k, "expected a key, got "+kind(k))
		}
		if slices.Contains(seen, k.Value) {
			return posErr(k, "duplicate key "+k.Value)
		}
		seen = append(seen, k.Value)
		if err := fn(k.Value, v); err != nil {
			if u, ok := errors.AsType[*unknownKey](err); ok {
				return posErr(k, fmt.Sprintf("unknown key %q (known keys: %s)", u.key, u.want))
			}
			return err
		}
	}
	return nil
}

func str(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!str" && n.Tag != "!!null") {
		return "", posErr(n, "expected a string, got "+kind(n))
	}
	if n.Tag == "!!null" {
		return "", nil
	}
	return n.Value, nil
}

func integer(n *yaml.Node, minimum int) (int, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return 0, posErr(n, "expected an integer, got "+kind(n))
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil || v < minimum || v > 1_000_000 {
		return 0, posErr(n, fmt.Sprintf("expected an integer from %d to 1000000, got %s", minimum, n.Value))
	}
	return v, nil
}

func enum(n *yaml.Node, dst *string, allowed ...string) error {
	s, err := str(n)
	if err != nil {
		return err
	}
	if !slices.Contains(allowed, s) {
		return posErr(n, fmt.Sprintf("status %q is not one of %s", s, strings.Join(allowed, ", ")))
	}
	*dst = s
	return nil
}

// unknownKey is returned by a key handler; mapping turns it into an error at the
// key's position.
type unknownKey struct{ key, want string }

func (u *unknownKey) Error() string { return "unknown key " + u.key }

func unknown(_ *yaml.Node, k, want string) error { return &unknownKey{key: k, want: want} }

func kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		return strings.TrimPrefix(n.Tag, "!!") + " " + strconv.Quote(clip(n.Value, 40))
	}
	return "nothing"
}

func posErr(n *yaml.Node, msg string) error { return fmt.Errorf("%d:%d: %s", n.Line, n.Column, msg) }
