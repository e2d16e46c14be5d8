package ghdouble

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestGraphQLFragmentsAndIssues answers the queries gh sends for issue view
// and pr list: inline fragments on a union, a named fragment spread, an
// object argument, and connections of labels and pull requests.
func TestGraphQLFragmentsAndIssues(t *testing.T) {
	s, c := seeded(t, Options{})
	s.AddIssue("acme/tool", Issue{Title: "bug", Body: "b", Author: "bob", Labels: []string{"x", "y"}})
	s.AddPR("acme/tool", PR{Title: "open one", Author: "alice", Head: "h1"})
	closed := s.AddPR("acme/tool", PR{Title: "closed one", Author: "alice", Head: "h2"})
	s.ClosePR("acme/tool", closed)
	ask := func(q string, vars map[string]any) string {
		b, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
		return string(c.do("POST", "/graphql", string(b)).body)
	}
	got := ask(`query IssueByNumber($owner: String!, $repo: String!, $number: Int!) {
	  repository(owner: $owner, name: $repo) { hasIssuesEnabled
	    issue: issueOrPullRequest(number: $number) { __typename
	      ...on Issue{title,body,labels(first:100){nodes{name},totalCount}}
	      ...on PullRequest{title,headRefName} } } }`, map[string]any{"owner": "acme", "repo": "tool", "number": 1})
	if want := `{"data":{"repository":{"hasIssuesEnabled":true,"issue":{"__typename":"Issue","body":"b","labels":{"nodes":[{"name":"x"},{"name":"y"}],"totalCount":2},"title":"bug"}}}}`; got != want {
		t.Errorf("issue view:\n got %s\nwant %s", got, want)
	}
	got = ask(`fragment pr on PullRequest{number,title,headRepositoryOwner{login,...on User{name}}}
	  query PullRequestList($owner: String!, $repo: String!, $limit: Int!, $state: [PullRequestState!] = OPEN) {
	  repository(owner: $owner, name: $repo) {
	    pullRequests(states: $state, first: $limit, orderBy: {field: CREATED_AT, direction: DESC}) {
	      totalCount nodes { ...pr } pageInfo { hasNextPage } } } }`, map[string]any{"owner": "acme", "repo": "tool", "limit": 30, "state": []string{"OPEN"}})
	if want := `{"data":{"repository":{"pullRequests":{"nodes":[{"headRepositoryOwner":{"login":"acme","name":null},"number":2,"title":"open one"}],"pageInfo":{"hasNextPage":false},"totalCount":1}}}}`; got != want {
		t.Errorf("pr list:\n got %s\nwant %s", got, want)
	}
	if got := ask(`{ repository(owner: "acme", name: "tool") { issue(number: 2) { title } } }`, nil); !strings.Contains(got, "Could not resolve to an Issue with the number of 2.") {
		t.Errorf("a pull request asked as an issue: %s", got)
	}
	if got := ask(`{ repository(owner: "acme", name: "tool") { issue(number: 1) { ...on PullRequest { title } } } }`, nil); !strings.Contains(got, "Fragment on PullRequest can't be spread inside Issue") {
		t.Errorf("a fragment that cannot apply: %s", got)
	}
	if got := ask(`mutation { addComment(input: {}) { clientMutationId } }`, nil); !strings.Contains(got, "answers queries only") {
		t.Errorf("a mutation: %s", got)
	}
}

func TestGraphQLScalars(t *testing.T) {
	for _, tt := range []struct {
		typ  string
		v    any
		want bool
	}{
		{"Int", 3, true}, {"Int", int64(3), true}, {"Int", "3", false},
		{"String", "a", true}, {"String", 1, false}, {"Boolean", false, true}, {"Boolean", "true", false},
		{"PullRequestState", "MERGED", true}, {"PullRequestState", "merged", false}, {"IssueState", "MERGED", false},
		{"MergeableState", "UNKNOWN", true}, {"DateTime", "2026-01-01T00:00:00Z", true}, {"Int", nil, true},
		{"Unknown", "x", false},
	} {
		if got := scalarFits(tt.typ, tt.v); got != tt.want {
			t.Errorf("scalarFits(%s, %#v) = %v, want %v", tt.typ, tt.v, got, tt.want)
		}
	}
}

// TestGraphQLThreadsAsClientsAskThem answers a reviewThreads query as
// published GitHub clients write it: fragments on each kind of Actor, the
// thread's subject and the viewer's rights.
func TestGraphQLThreadsAsClientsAskThem(t *testing.T) {
	s, c := seeded(t, Options{})
	n := s.AddPR("acme/tool", PR{Title: "p", Author: "alice", Head: "b"})
	s.AddThread("acme/tool", n, Thread{Path: "a.go", Line: 3, Comments: []Comment{{Author: "copilot[bot]", Body: "nit"}}})
	q := `query ReviewThreads($owner: String!, $name: String!, $number: Int!, $cursor: String) {
	  repository(owner: $owner, name: $name) { pullRequest(number: $number) {
	    reviewThreads(first: 100, after: $cursor) { nodes {
	      id isResolved isOutdated path subjectType diffSide line startLine originalLine originalStartLine viewerCanResolve
	      comments(first: 100) { nodes { body diffHunk author { login __typename ... on Bot { id } ... on User { id } } }
	        pageInfo { hasNextPage endCursor } } }
	    pageInfo { hasNextPage endCursor } } } } }`
	b, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]any{"owner": "acme", "name": "tool", "number": n}})
	got := string(c.do("POST", "/graphql", string(b)).body)
	for _, want := range []string{`"subjectType":"LINE"`, `"viewerCanResolve":true`, `"__typename":"Bot"`, `"login":"copilot"`, `"originalStartLine":null`} {
		if !strings.Contains(got, want) {
			t.Errorf("answer lacks %s: %s", want, got)
		}
	}
	if strings.Contains(got, `"errors"`) {
		t.Errorf("errors: %s", got)
	}
}
