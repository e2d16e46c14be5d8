package github

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/google/go-cmp/cmp"
)

func issueJSONOf(n int, login, assoc string) string {
	return fmt.Sprintf(`{"number":%d,"title":"issue %d","body":"","state":"open","html_url":"https://h/o/r/issues/%d","user":{"login":%q},"author_association":%q,"labels":[{"name":"agentloop"}],"updated_at":"2026-11-28T10:00:00Z"}`, n, n, n, login, assoc)
}

// TestIssuesConditional: the open issues are read page by page (Link
// rel="next"), pull requests left out; asked again, every page is a
// conditional request whose 304 is not counted against the rate limit and
// changed is false; a changed page gives the whole list again.
func TestIssuesConditional(t *testing.T) {
	t.Parallel()
	var version atomic.Int32 // page 2's
	var f *fake
	page := func(w http.ResponseWriter, r *http.Request, etag, next, body string) {
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		if next != "" {
			w.Header().Set("Link", `<`+next+`>; rel="next", <`+next+`>; rel="last"`)
		}
		fmt.Fprint(w, body)
	}
	f = newFake(t, map[string]http.HandlerFunc{
		"GET /repos/o/r/issues": func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if q.Get("state") != "open" || q.Get("labels") != "agentloop,ready" || q.Get("per_page") != "100" {
				t.Errorf("query %q", r.URL.RawQuery)
			}
			if q.Get("page") == "2" {
				v := version.Load()
				page(w, r, fmt.Sprintf(`W/"p2-%d"`, v), "", "["+issueJSONOf(3+int(v), "bob", "NONE")+"]")
				return
			}
			pr := `{"number":2,"title":"a pull request","state":"open","user":{"login":"bob"},"author_association":"NONE","pull_request":{"url":"x"}}`
			page(w, r, `"p1"`, f.url("repos/o/r/issues?state=open&labels=agentloop,ready&per_page=100&page=2"), "["+issueJSONOf(1, "bob", "NONE")+","+pr+"]")
		},
	})
	q := forge.Query{Repo: f.repo, Labels: []string{"ready", "agentloop"}}
	numbers := func(is []forge.Issue) (ns []int) {
		for _, i := range is {
			ns = append(ns, i.Ref.Number)
		}
		return ns
	}

	is, changed, err := f.c.Issues(t.Context(), q)
	if err != nil || !changed || !cmp.Equal(numbers(is), []int{1, 3}) {
		t.Fatalf("Issues() = %v, %v, %v; want #1 and #3, changed", numbers(is), changed, err)
	}
	if is[0].Title != "issue 1" || is[0].Trusted || !cmp.Equal(is[0].Labels, []string{"agentloop"}) || !is[0].Open {
		t.Errorf("Issues()[0] = %+v", is[0])
	}
	if s := f.c.Stats(); s.Requests != 2 || s.Conditional304 != 0 {
		t.Errorf("Stats() after the first poll = %+v", s)
	}

	is, changed, err = f.c.Issues(t.Context(), q)
	if err != nil || changed || is != nil {
		t.Fatalf("Issues() again = %v, %v, %v; want unchanged", numbers(is), changed, err)
	}
	if s := f.c.Stats(); s.Requests != 2 || s.Conditional304 != 2 {
		t.Errorf("Stats() after an unchanged poll = %+v, want the 304s apart from the counted requests", s)
	}

	version.Store(1)
	is, changed, err = f.c.Issues(t.Context(), q)
	if err != nil || !changed || !cmp.Equal(numbers(is), []int{1, 4}) {
		t.Fatalf("Issues() after page 2 changed = %v, %v, %v; want #1 and #4", numbers(is), changed, err)
	}
	if s := f.c.Stats(); s.Requests != 3 || s.Conditional304 != 3 {
		t.Errorf("Stats() = %+v, want page 1 a 304 and page 2 counted", s)
	}
}

// TestTrusted: an author is trusted when the repository's permissions say
// they may write, asked once per login; author_association only spares
// asking about one who is no collaborator, member or owner.
func TestTrusted(t *testing.T) {
	t.Parallel()
	asked := map[string]int{}
	var f *fake
	f = newFake(t, map[string]http.HandlerFunc{
		"GET /repos/o/r/issues/1/comments": func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("page") == "" {
				w.Header().Set("Link", `<`+f.url("repos/o/r/issues/1/comments?per_page=100&page=2")+`>; rel="next"`)
				fmt.Fprint(w, `[{"id":1,"body":"a","user":{"login":"owner"},"author_association":"OWNER","created_at":"2026-11-28T10:00:00Z"},
					{"id":2,"body":"b","user":{"login":"reader"},"author_association":"COLLABORATOR"},
					{"id":3,"body":"c","user":{"login":"stranger"},"author_association":"NONE"}]`)
				return
			}
			fmt.Fprint(w, `[{"id":4,"body":"d","user":{"login":"maint"},"author_association":"MEMBER"},
				{"id":5,"body":"e","user":{"login":"Owner"},"author_association":"OWNER"},
				{"id":6,"body":"f","user":{"login":"triager"},"author_association":"MEMBER"},
				{"id":7,"body":"g","user":{"login":"gone"},"author_association":"COLLABORATOR"}]`)
		},
		"GET /repos/o/r/collaborators/{user}/permission": func(w http.ResponseWriter, r *http.Request) {
			u := r.PathValue("user")
			asked[strings.ToLower(u)]++
			perm := map[string]string{
				"owner":   `{"permission":"admin","role_name":"admin"}`,
				"reader":  `{"permission":"read","role_name":"read"}`,
				"maint":   `{"permission":"write","role_name":"maintain"}`,
				"triager": `{"permission":"read","role_name":"triage"}`,
			}[strings.ToLower(u)]
			if perm == "" {
				reply(404, `{"message":"Not Found"}`)(w, r)
				return
			}
			fmt.Fprint(w, perm)
		},
	})
	cs, err := f.c.Comments(t.Context(), f.ref(1))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, c := range cs {
		got[c.Author] = c.Trusted
	}
	want := map[string]bool{"owner": true, "Owner": true, "reader": false, "stranger": false, "maint": true, "triager": false, "gone": false}
	if diff := cmp.Diff(want, got); diff != "" || len(cs) != 7 || cs[0].Body != "a" || cs[6].ID != 7 {
		t.Errorf("trust (-want +got):\n%s\n%+v", diff, cs)
	}
	if diff := cmp.Diff(map[string]int{"owner": 1, "reader": 1, "maint": 1, "triager": 1, "gone": 1}, asked); diff != "" {
		t.Errorf("permission requests (-want +got):\n%s", diff)
	}
	for login, want := range map[string]forge.Permission{"maint": forge.PermissionMaintain, "triager": forge.PermissionTriage, "gone": forge.PermissionNone} {
		if p, err := f.c.Permission(t.Context(), f.repo, login); p != want || err != nil {
			t.Errorf("Permission(%s) = %q, %v; want %q", login, p, err, want)
		}
	}
}

// TestIssueBlockedBy: an issue with its author's trust and the issues it
// waits on; a host without issue dependencies (404) gives none.
func TestIssueBlockedBy(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]http.HandlerFunc{
		"GET /repos/o/r/issues/5": reply(200, issueJSONOf(5, "owner", "OWNER")),
		"GET /repos/o/r/issues/5/dependencies/blocked_by": reply(200, `[{"number":3,"repository_url":"https://h/api/v3/repos/o/r"},
			{"number":9,"repository_url":"https://h/api/v3/repos/other/lib"}]`),
		"GET /repos/o/r/issues/6":                       reply(200, issueJSONOf(6, "owner", "OWNER")),
		"GET /repos/o/r/collaborators/owner/permission": reply(200, `{"permission":"admin"}`),
	})
	is, err := f.c.Issue(t.Context(), f.ref(5))
	want := []forge.IssueRef{f.ref(3), {Repo: forge.Repo{Host: f.repo.Host, Owner: "other", Name: "lib"}, Number: 9}}
	if err != nil || !is.Trusted || !cmp.Equal(is.BlockedBy, want) || is.URL != "https://h/o/r/issues/5" {
		t.Errorf("Issue(5) = %+v, %v; want trusted, blocked by %v", is, err, want)
	}
	is, err = f.c.Issue(t.Context(), f.ref(6))
	if err != nil || is.BlockedBy != nil {
		t.Errorf("Issue(6) = %+v, %v; want no dependencies", is, err)
	}
}

// TestLabelAndComment: labels are added in one request and taken off one
// by one (one already gone is fine); a comment is posted and edited.
func TestLabelAndComment(t *testing.T) {
	t.Parallel()
	var bodies []string
	record := func(status int, answer string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			bodies = append(bodies, r.Method+" "+r.URL.Path+" "+string(b))
			reply(status, answer)(w, r)
		}
	}
	comment := `{"id":77,"body":"<!-- agentloop:progress -->","user":{"login":"bot"},"author_association":"NONE","html_url":"https://h/c/77"}`
	f := newFake(t, map[string]http.HandlerFunc{
		"POST /repos/o/r/issues/1/labels":                       record(200, `[]`),
		"DELETE /repos/o/r/issues/1/labels/agentloop":           record(200, `[]`),
		"DELETE /repos/o/r/issues/1/labels/agentloop:needs-you": record(404, `{"message":"Label does not exist"}`),
		"POST /repos/o/r/issues/1/comments":                     record(201, comment),
		"PATCH /repos/o/r/issues/comments/77":                   record(200, comment),
	})
	if err := f.c.Label(t.Context(), f.ref(1), []string{"agentloop:running"}, []string{"agentloop", "agentloop:needs-you"}); err != nil {
		t.Fatal(err)
	}
	c, err := f.c.Comment(t.Context(), f.ref(1), forge.Marker("progress"))
	if err != nil || c.ID != 77 || c.URL != "https://h/c/77" {
		t.Fatalf("Comment() = %+v, %v", c, err)
	}
	if _, err := f.c.EditComment(t.Context(), f.repo, 77, "new"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`POST /api/v3/repos/o/r/issues/1/labels {"labels":["agentloop:running"]}`,
		`DELETE /api/v3/repos/o/r/issues/1/labels/agentloop `,
		`DELETE /api/v3/repos/o/r/issues/1/labels/agentloop:needs-you `,
		`POST /api/v3/repos/o/r/issues/1/comments {"body":"\u003c!-- agentloop:progress --\u003e"}`,
		`PATCH /api/v3/repos/o/r/issues/comments/77 {"body":"new"}`,
	}
	if diff := cmp.Diff(want, bodies); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	var sent struct{ Body string }
	if err := json.Unmarshal([]byte(strings.SplitN(bodies[3], " ", 3)[2]), &sent); err != nil || sent.Body != forge.Marker("progress") {
		t.Errorf("comment body %q, %v", sent.Body, err)
	}
	err = f.c.Label(t.Context(), forge.IssueRef{Repo: f.repo, Number: 2}, []string{"x"}, nil)
	if !errors.Is(err, forge.ErrNotFound) || !strings.Contains(err.Error(), "add label x to "+f.repo.Host+"/o/r#2: POST /api/v3/repos/o/r/issues/2/labels: not found") {
		t.Errorf("Label(#2) = %v", err)
	}
}
