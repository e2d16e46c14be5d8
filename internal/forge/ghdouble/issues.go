package ghdouble

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
)

func (s *Server) getUser(c *call) answer {
	if strings.HasSuffix(c.tok.Login, "[bot]") {
		// An App's installation token is no user.
		return forbidden()
	}
	u := s.userJSON(c, c.tok.Login)
	for k, v := range (obj{"name": nil, "company": nil, "blog": "", "location": nil, "email": nil,
		"hireable": nil, "bio": nil, "twitter_username": nil, "public_repos": 0, "public_gists": 0,
		"followers": 0, "following": 0, "created_at": "2020-01-01T00:00:00Z", "updated_at": "2020-01-01T00:00:00Z",
		"private_gists": 0, "total_private_repos": 0, "owned_private_repos": 0, "disk_usage": 0,
		"collaborators": 0, "two_factor_authentication": true}) {
		u[k] = v
	}
	return answer{status: 200, body: u}
}

func (s *Server) getRepo(c *call) answer {
	return answer{status: 200, body: s.repoJSON(c, c.repo, true)}
}

// number is the path's issue_number or pull_number; ok false when it is
// not one, or names nothing in the repository.
func (c *call) number(param string) (*item, bool) {
	n, err := strconv.Atoi(c.params[param])
	if err != nil {
		return nil, false
	}
	it := c.repo.items[n]
	return it, it != nil
}

func (s *Server) listIssues(c *call) answer {
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var want []string
	if l := q.Get("labels"); l != "" {
		want = strings.Split(l, ",")
	}
	var out []any
	ns := c.repo.numbers()
	if q.Get("direction") != "asc" {
		slices.Reverse(ns)
	}
	for _, n := range ns {
		it := c.repo.items[n]
		if state != "all" && it.issue.State != state {
			continue
		}
		if !hasLabels(it.issue.Labels, want) {
			continue
		}
		out = append(out, s.issueJSON(c, c.repo, it))
	}
	return page(c, out)
}

func hasLabels(have, want []string) bool {
	for _, w := range want {
		w = strings.TrimSpace(w)
		if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, w) }) {
			return false
		}
	}
	return true
}

// page answers the page of all that per_page and page ask, with GitHub's
// Link header to the others.
func page(c *call, all []any) answer {
	q := c.r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per <= 0 {
		per = 30
	}
	per = min(per, 100)
	p, err := strconv.Atoi(q.Get("page"))
	if err != nil || p <= 0 {
		p = 1
	}
	last := max((len(all)+per-1)/per, 1)
	from, to := min((p-1)*per, len(all)), min(p*per, len(all))
	body := append([]any{}, all[from:to]...)
	link := func(n int) string {
		q.Set("page", strconv.Itoa(n))
		return "<" + c.api() + c.path + "?" + q.Encode() + ">"
	}
	var links []string
	if p > 1 {
		links = append(links, link(min(p-1, last))+`; rel="prev"`)
	}
	if p < last {
		links = append(links, link(p+1)+`; rel="next"`, link(last)+`; rel="last"`)
	}
	if p > 1 {
		links = append(links, link(1)+`; rel="first"`)
	}
	ans := answer{status: 200, body: body}
	if len(links) > 0 {
		ans.header = map[string][]string{"Link": {strings.Join(links, ", ")}}
	}
	return ans
}

func (s *Server) getIssue(c *call) answer {
	it, ok := c.number("issue_number")
	if !ok {
		return notFound()
	}
	return answer{status: 200, body: s.issueJSON(c, c.repo, it)}
}

func (s *Server) listComments(c *call) answer {
	it, ok := c.number("issue_number")
	if !ok {
		return notFound()
	}
	var out []any
	for _, cm := range it.issue.Comments {
		out = append(out, s.commentJSON(c, c.repo, it.issue.Number, cm))
	}
	return page(c, out)
}

// decode reads the request's JSON body into v; a 400 answer when it is not.
func decode(c *call, v any) (answer, bool) {
	if err := json.NewDecoder(c.r.Body).Decode(v); err != nil {
		return answer{status: 400, body: errorBody("Problems parsing JSON", "https://docs.github.com/rest", 400)}, false
	}
	return answer{}, true
}

func (s *Server) createComment(c *call) answer {
	it, ok := c.number("issue_number")
	if !ok {
		return notFound()
	}
	var in struct {
		Body *string `json:"body"`
	}
	if a, ok := decode(c, &in); !ok {
		return a
	}
	doc := "https://docs.github.com/rest/issues/comments#create-an-issue-comment"
	if in.Body == nil || *in.Body == "" {
		return invalid(doc, obj{"resource": "IssueComment", "code": "missing_field", "field": "body"})
	}
	cm := s.commentLocked(it, c.tok.Login, *in.Body)
	j := s.commentJSON(c, c.repo, it.issue.Number, cm)
	return answer{status: 201, body: j, header: map[string][]string{"Location": {j["url"].(string)}}}
}

func (s *Server) updateComment(c *call) answer {
	id, err := strconv.ParseInt(c.params["comment_id"], 10, 64)
	if err != nil {
		return notFound()
	}
	var in struct {
		Body *string `json:"body"`
	}
	if a, ok := decode(c, &in); !ok {
		return a
	}
	for _, n := range c.repo.numbers() {
		it := c.repo.items[n]
		for i := range it.issue.Comments {
			cm := &it.issue.Comments[i]
			if cm.ID != id {
				continue
			}
			if cm.Author != c.tok.Login && !c.repo.atLeast(c.tok.Login, "write") {
				return forbidden()
			}
			if in.Body == nil || *in.Body == "" {
				return invalid("https://docs.github.com/rest/issues/comments#update-an-issue-comment",
					obj{"resource": "IssueComment", "code": "missing_field", "field": "body"})
			}
			cm.Edits = append(cm.Edits, cm.Body)
			cm.Body, cm.UpdatedAt = *in.Body, s.now()
			return answer{status: 200, body: s.commentJSON(c, c.repo, n, *cm)}
		}
	}
	return notFound()
}

func (s *Server) blockedBy(c *call) answer {
	it, ok := c.number("issue_number")
	if !ok {
		return notFound()
	}
	var out []any
	bs := slices.Clone(it.issue.BlockedBy)
	sort.Ints(bs)
	for _, n := range bs {
		if b := c.repo.items[n]; b != nil {
			out = append(out, s.issueJSON(c, c.repo, b))
		}
	}
	return page(c, out)
}

func (s *Server) getPermission(c *call) answer {
	if !c.repo.atLeast(c.tok.Login, "write") {
		return answer{status: 403, body: errorBody("Must have push access to view repository collaborators.",
			"https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user", 403)}
	}
	login := c.params["username"]
	role := c.repo.perm(login)
	legacy := map[string]string{"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read"}[role]
	if role == "" {
		role, legacy = "read", "read"
		if c.repo.setup.Private {
			role, legacy = "none", "none"
		}
	}
	u := s.userJSON(c, login)
	u["permissions"] = obj{"pull": legacy != "none", "triage": c.repo.atLeast(login, "triage"),
		"push": c.repo.atLeast(login, "write"), "maintain": c.repo.atLeast(login, "maintain"), "admin": role == "admin"}
	u["role_name"] = role
	return answer{status: 200, body: obj{"permission": legacy, "role_name": role, "user": u}}
}
