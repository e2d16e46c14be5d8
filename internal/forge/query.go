package forge

import (
	"fmt"
	"strings"
)

// ParseQuery reads the issues a person asks serve to take, in the words of
// GitHub's search: qualifiers separated by spaces, each label:NAME (every
// one must be on an issue; label:"two words" for a name with spaces) or
// repo:OWNER/NAME (HOST/OWNER/NAME off github.com; without one, def, the
// work tree's remote). An empty query, or one without a label, is refused:
// serve takes only issues a person marked for it.
func ParseQuery(s string, def Repo) (Query, error) {
	bad := func(why string) (Query, error) {
		return Query{}, fmt.Errorf("issues query %q: %s; write label:NAME, and repo:OWNER/NAME outside a clone of the repository", s, why)
	}
	words, err := queryWords(s)
	if err != nil {
		return bad(err.Error())
	}
	q := Query{Repo: def}
	if q.Repo.Host == "" {
		q.Repo.Host = DefaultHost
	}
	for _, w := range words {
		key, val, ok := strings.Cut(w, ":")
		if !ok || val == "" {
			return bad(fmt.Sprintf("%q is not a qualifier", w))
		}
		switch key {
		case "label":
			q.Labels = append(q.Labels, val)
		case "repo":
			ref, err := ParseIssueRef(val+"#1", Repo{Host: q.Repo.Host})
			if err != nil {
				return bad(fmt.Sprintf("repo:%s is not OWNER/NAME", val))
			}
			q.Repo = ref.Repo
		default:
			return bad(fmt.Sprintf("%s: is not a qualifier serve knows (label:, repo:)", key))
		}
	}
	if len(q.Labels) == 0 {
		return bad("no label: serve takes only the issues a person labelled for it")
	}
	if q.Repo.Owner == "" || q.Repo.Name == "" {
		return bad("no repository: none named, and none known from the work tree's remote")
	}
	return q, nil
}

// queryWords splits s at spaces, a double-quoted part of a word kept whole.
func queryWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case !quoted && (r == ' ' || r == '\t' || r == '\n'):
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("a quote is not closed")
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
