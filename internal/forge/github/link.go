package github

import "strings"

// parseLink reads an HTTP Link header (RFC 8288) as GitHub sends it for
// pages: `<URL>; rel="next", <URL>; rel="last"`, into rel → URL. A URL may
// hold commas (labels=a,b) and a rel may name several relations; what does
// not parse ends the reading, keeping what came before.
func parseLink(h string) map[string]string {
	links := map[string]string{}
	s := h
	for {
		s = strings.TrimLeft(s, " \t,")
		if !strings.HasPrefix(s, "<") {
			return links
		}
		end := strings.IndexByte(s, '>')
		if end < 0 {
			return links
		}
		target := s[1:end]
		s = s[end+1:]
		var rels []string
		for {
			s = strings.TrimLeft(s, " \t")
			if !strings.HasPrefix(s, ";") {
				break
			}
			s = strings.TrimLeft(s[1:], " \t")
			i := strings.IndexAny(s, "=;,")
			if i < 0 {
				return links
			}
			key := strings.ToLower(strings.TrimSpace(s[:i]))
			var val string
			if s[i] != '=' {
				s = s[i:] // a parameter without a value
				continue
			}
			s = strings.TrimLeft(s[i+1:], " \t")
			if strings.HasPrefix(s, `"`) {
				q := strings.IndexByte(s[1:], '"')
				if q < 0 {
					return links
				}
				val, s = s[1:q+1], s[q+2:]
			} else {
				j := strings.IndexAny(s, ";,")
				if j < 0 {
					j = len(s)
				}
				val, s = strings.TrimSpace(s[:j]), s[j:]
			}
			if key == "rel" {
				rels = append(rels, strings.Fields(strings.ToLower(val))...)
			}
		}
		for _, rel := range rels {
			if _, seen := links[rel]; !seen {
				links[rel] = target
			}
		}
		s = strings.TrimLeft(s, " \t")
		if s != "" && s[0] != ',' {
			return links
		}
	}
}
