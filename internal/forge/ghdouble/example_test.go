package ghdouble_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentloop/agentloop/internal/forge/ghdouble"
)

// A test of a GitHub client starts a double (ghdouble.Start(t, opts) in a
// test), seeds it, points the client at URL()+"/api/v3" (or GH_HOST=Host()
// with SSL_CERT_FILE=CAFile() for go-gh and gh), and reads back what the
// client did.
func Example() {
	s, _ := ghdouble.New(ghdouble.Options{TLS: true})
	s.Listen("127.0.0.1:0")
	defer s.Close()
	s.AddToken("tok", ghdouble.Token{Login: "alice", Scopes: []string{"repo"}})
	s.SetPermission("acme/tool", "alice", "write")
	n := s.AddIssue("acme/tool", ghdouble.Issue{Title: "Fix the parser", Author: "bob", Labels: []string{"agentloop"}})

	req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/v3/repos/acme/tool/issues/%d/labels", s.URL(), n),
		strings.NewReader(`{"labels":["agentloop:running"]}`))
	req.Header.Set("Authorization", "token tok")
	resp, err := s.Client().Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	var labels []struct{ Name string }
	json.NewDecoder(resp.Body).Decode(&labels)
	resp.Body.Close()
	is, _ := s.Issue("acme/tool", n)
	fmt.Println(resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"), len(labels), is.Labels)
	fmt.Println(s.Count("POST /repos/{owner}/{repo}/issues/{issue_number}/labels"), s.Violations())
	// Output:
	// 200 4999 2 [agentloop agentloop:running]
	// 1 []
}
