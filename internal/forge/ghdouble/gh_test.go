package ghdouble

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestRealGHCLI points the real gh CLI (a second client, not ours) at the
// double as a GitHub Enterprise host over HTTPS, trusting the double's CA
// through SSL_CERT_FILE: REST through gh api (with paging by the Link
// header and a write), GraphQL through gh issue view and gh pr list. Every
// answer it gets is checked against GitHub's description at the test's end.
func TestRealGHCLI(t *testing.T) {
	gh := testenv.NeedTool(t, "gh")
	s := Start(t, Options{TLS: true})
	s.AddToken("tok", Token{Login: "alice", Scopes: []string{"repo", "read:org"}})
	s.AddRepo("acme/tool", Repo{})
	s.SetPermission("acme/tool", "alice", "write")
	s.AddIssue("acme/tool", Issue{Title: "Fix the parser", Body: "It breaks on tabs", Author: "bob", Labels: []string{"agentloop", "bug"}})
	for i := 0; i < 4; i++ {
		s.AddIssue("acme/tool", Issue{Title: "more", Author: "bob"})
	}
	s.AddPR("acme/tool", PR{Title: "Fix it", Body: "Closes #1", Author: "alice", Head: "agentloop/issue-1"})

	home := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, gh, args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GH_CONFIG_DIR=" + home,
			"GH_HOST=" + s.Host(), "GH_ENTERPRISE_TOKEN=tok", "SSL_CERT_FILE=" + s.CAFile(),
			"GH_PROMPT_DISABLED=1", "GH_NO_UPDATE_NOTIFIER=1", "NO_COLOR=1"}
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("gh %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
		}
		return string(out)
	}
	repo := s.Host() + "/acme/tool"

	var issue struct{ Title, Body string }
	if err := json.Unmarshal([]byte(run("api", "repos/acme/tool/issues/1")), &issue); err != nil || issue.Title != "Fix the parser" {
		t.Errorf("gh api issue: %+v, %v", issue, err)
	}
	if got := strings.Fields(run("api", "--paginate", "repos/acme/tool/issues?per_page=2", "--jq", ".[].number")); strings.Join(got, ",") != "6,5,4,3,2,1" {
		t.Errorf("gh api --paginate followed the Link header to issues %v, want 6..1 (the pull request is an issue too)", got)
	}
	run("api", "-X", "POST", "repos/acme/tool/issues/1/comments", "-f", "body=from gh")
	if is, _ := s.Issue("acme/tool", 1); len(is.Comments) != 1 || is.Comments[0].Body != "from gh" || is.Comments[0].Author != "alice" {
		t.Errorf("the comment gh posted: %+v", is.Comments)
	}

	var view struct {
		Title, Body string
		Labels      []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(run("issue", "view", "1", "-R", repo, "--json", "title,body,labels")), &view); err != nil {
		t.Fatal(err)
	}
	if view.Title != "Fix the parser" || view.Body != "It breaks on tabs" || len(view.Labels) != 2 || view.Labels[1].Name != "bug" {
		t.Errorf("gh issue view: %+v", view)
	}
	if out := run("pr", "list", "-R", repo); !strings.Contains(out, "6\tFix it\tagentloop/issue-1\tOPEN") {
		t.Errorf("gh pr list = %q", out)
	}
	if out := run("pr", "view", "6", "-R", repo, "--json", "number,state,headRefName"); out != `{"headRefName":"agentloop/issue-1","number":6,"state":"OPEN"}`+"\n" {
		t.Errorf("gh pr view = %q", out)
	}
}
