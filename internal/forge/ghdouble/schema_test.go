package ghdouble

import (
	"fmt"
	"strings"
	"testing"
)

func TestValidatorCatchesWhatGitHubWouldNotSend(t *testing.T) {
	s, c := seeded(t, Options{})
	s.AddIssue("acme/tool", Issue{Title: "t", Author: "bob", Labels: []string{"x"}})
	good := c.do("GET", "/repos/acme/tool/issues/1", "")
	if v := checkAnswer("get", "/repos/{owner}/{repo}/issues/{issue_number}", 200, good.body); v != "" {
		t.Fatalf("the double's own issue breaks the description: %s", v)
	}
	body := string(good.body)
	tests := []struct {
		name, method, tmpl string
		status             int
		body, want         string
	}{
		{"a required property missing", "get", "/repos/{owner}/{repo}/issues/{issue_number}", 200,
			strings.Replace(body, `"number":1,`, "", 1), `required property "number" is missing`},
		{"a wrong type", "get", "/repos/{owner}/{repo}/issues/{issue_number}", 200,
			strings.Replace(body, `"number":1,`, `"number":"1",`, 1), `$.number: a string where the description says integer`},
		{"a property GitHub does not describe", "get", "/repos/{owner}/{repo}/issues/{issue_number}", 200,
			strings.Replace(body, `"number":1,`, `"number":1,"priority":3,`, 1), `property "priority" is not in the description`},
		{"null where not nullable", "get", "/repos/{owner}/{repo}/issues/{issue_number}", 200,
			strings.Replace(body, `"title":"t"`, `"title":null`, 1), `$.title: null where the description allows none`},
		{"a value outside an enum", "get", "/repos/{owner}/{repo}/issues/{issue_number}", 200,
			strings.Replace(body, `"author_association":"NONE"`, `"author_association":"STRANGER"`, 1), `is not one of`},
		{"a nested object broken", "get", "/repos/{owner}/{repo}/issues/{issue_number}", 200,
			strings.Replace(body, `"login":"bob",`, "", 1), `$.user: required property "login" is missing`},
		{"a label neither string nor label", "get", "/repos/{owner}/{repo}/issues/{issue_number}", 200,
			strings.Replace(body, `"labels":[{`, `"labels":[7,{`, 1), `$.labels[0]: fits none of the oneOf alternatives`},
		{"an undocumented status", "get", "/repos/{owner}/{repo}/issues/{issue_number}", 418, "", "status 418 is not one the description documents"},
		{"a body where none is documented", "get", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs", 302, `{}`, "a body where the description documents none"},
		{"no body where one is documented", "post", "/repos/{owner}/{repo}/pulls", 201, "", "no body where the description documents one"},
		{"an operation GitHub does not have", "get", "/repos/{owner}/{repo}/nope", 200, "{}", "the description has no operation"},
		{"a rate limit body", "get", "/user", 403, `{"message":"API rate limit exceeded","documentation_url":"https://docs.github.com/rest","status":"403"}`, ""},
		{"a validation error", "post", "/repos/{owner}/{repo}/pulls", 422, `{"message":"Validation Failed","errors":[{"resource":"PullRequest"}],"documentation_url":"x"}`, `required property "code" is missing`},
	}
	for _, tt := range tests {
		got := checkAnswer(tt.method, tt.tmpl, tt.status, []byte(tt.body))
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: checkAnswer = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// recorder is a test that records its errors instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}

// TestViolationFailsTheTest: an answer that breaks the description is
// recorded as it is sent and fails the test at Check.
func TestViolationFailsTheTest(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.AddToken("tok", Token{Login: "alice"})
	s.AddRepo("acme/tool", Repo{})
	s.FailNext("GET", "/repos/{owner}/{repo}", 1, 418)
	c := newClient(t, s, "tok")
	if r := c.do("GET", "/repos/acme/tool", ""); r.status != 418 {
		t.Fatalf("status %d", r.status)
	}
	c.do("GET", "/repos/acme/tool", "")
	if r := c.do("GET", "/api/v3/repos/acme/tool/branches", ""); r.status != 404 {
		t.Errorf("an operation the double does not serve = %d, want 404", r.status)
	}
	rec := &recorder{TB: t}
	s.Check(rec)
	if len(rec.errs) != 2 || !strings.Contains(rec.errs[0], "status 418 is not one the description documents for GET /repos/{owner}/{repo}") ||
		!strings.Contains(rec.errs[1], "GET /repos/acme/tool/branches: the double does not serve this operation") {
		t.Errorf("Check reported %q, want the 418 and the operation not served", rec.errs)
	}
}
