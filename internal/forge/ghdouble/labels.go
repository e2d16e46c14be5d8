package ghdouble

import (
	"encoding/json"
	"slices"
	"strings"
)

func (s *Server) addLabels(c *call) answer {
	it, ok := c.number("issue_number")
	if !ok {
		return notFound()
	}
	if !c.repo.atLeast(c.tok.Login, "triage") {
		return forbidden()
	}
	var raw json.RawMessage
	if a, ok := decode(c, &raw); !ok {
		return a
	}
	// The description allows {"labels": [names]}, {"labels": [{"name"}]}
	// and a bare array of names.
	var in struct {
		Labels []json.RawMessage `json:"labels"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		json.Unmarshal(raw, &in.Labels)
	}
	var names []string
	for _, l := range in.Labels {
		var name string
		var named struct{ Name string }
		switch {
		case json.Unmarshal(l, &name) == nil:
		case json.Unmarshal(l, &named) == nil && named.Name != "":
			name = named.Name
		default:
			return invalid("https://docs.github.com/rest/issues/labels#add-labels-to-an-issue",
				obj{"resource": "Label", "code": "invalid", "field": "labels"})
		}
		names = append(names, name)
	}

	for _, l := range names {
		if !hasLabels(it.issue.Labels, []string{l}) {
			it.issue.Labels = append(it.issue.Labels, l)
		}
	}
	it.issue.UpdatedAt = s.now()
	return answer{status: 200, body: s.labelsJSON(c, it)}
}

func (s *Server) labelsJSON(c *call, it *item) []any {
	out := []any{}
	for _, l := range it.issue.Labels {
		out = append(out, s.labelJSON(c, c.repo, l))
	}
	return out
}

func (s *Server) removeLabel(c *call) answer {
	it, ok := c.number("issue_number")
	if !ok {
		return notFound()
	}
	if !c.repo.atLeast(c.tok.Login, "triage") {
		return forbidden()
	}
	name := c.params["name"]
	i := slices.IndexFunc(it.issue.Labels, func(l string) bool { return strings.EqualFold(l, name) })
	if i < 0 {
		return answer{status: 404, body: errorBody("Label does not exist", "https://docs.github.com/rest/issues/labels#remove-a-label-from-an-issue", 404)}
	}
	it.issue.Labels = slices.Delete(it.issue.Labels, i, i+1)
	it.issue.UpdatedAt = s.now()
	return answer{status: 200, body: s.labelsJSON(c, it)}
}
