package forge

import (
	"slices"
	"strings"
	"testing"
)

func TestParseQuery(t *testing.T) {
	def := Repo{Host: "github.com", Owner: "acme", Name: "tool"}
	tests := []struct {
		in     string
		def    Repo
		repo   string
		labels []string
		err    string
	}{
		{in: "label:agentloop", def: def, repo: "acme/tool", labels: []string{"agentloop"}},
		{in: "  label:a   label:b ", def: def, repo: "acme/tool", labels: []string{"a", "b"}},
		{in: `label:"needs agent" repo:o/r`, repo: "o/r", labels: []string{"needs agent"}},
		{in: "repo:ghe.example.com/o/r label:x", repo: "ghe.example.com/o/r", labels: []string{"x"}},
		{in: "label:x repo:o/r", def: Repo{Host: "ghe.example.com"}, repo: "ghe.example.com/o/r", labels: []string{"x"}},
		{in: "", def: def, err: "no label"},
		{in: "repo:o/r", err: "no label"},
		{in: "label:x", err: "no repository"},
		{in: "agentloop", def: def, err: "not a qualifier"},
		{in: "label:", def: def, err: "not a qualifier"},
		{in: "is:open label:x", def: def, err: "is: is not a qualifier serve knows"},
		{in: `label:"x`, def: def, err: "not closed"},
		{in: "label:x repo:o", err: "not OWNER/NAME"},
	}
	for _, tt := range tests {
		q, err := ParseQuery(tt.in, tt.def)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseQuery(%q) = %+v, %v; want an error with %q", tt.in, q, err, tt.err)
			}
			continue
		}
		if err != nil || q.Repo.String() != tt.repo || !slices.Equal(q.Labels, tt.labels) {
			t.Errorf("ParseQuery(%q) = %s %q, %v; want %s %q", tt.in, q.Repo, q.Labels, err, tt.repo, tt.labels)
		}
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"label:a", `label:"a b" repo:o/r`, "repo:h/o/r label:x", `"`, "label:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuery(s, Repo{Owner: "o", Name: "r"})
		if err != nil {
			return
		}
		if len(q.Labels) == 0 || q.Repo.Owner == "" || q.Repo.Name == "" || q.Repo.Host == "" {
			t.Fatalf("ParseQuery(%q) = %+v: a part is missing", s, q)
		}
	})
}
