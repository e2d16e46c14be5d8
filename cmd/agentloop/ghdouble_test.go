package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentloop/agentloop/internal/forge/ghdouble"
)

// doubleKey holds a script's GitHub double ([ghdouble.Server]) in its values.
type doubleKey struct{}

// doubleHolder is a script's GitHub double, once started.
type doubleHolder struct {
	s      *ghdouble.Server
	remote string // the bare repository acme/tool's branches are in
}

// The GitHub double's repository and people in the scripts: agentloop's
// token is the bot's, who may write; maint may write; stranger may not.
const (
	doubleRepo  = "acme/tool"
	doubleToken = "tok-agentloop"
)

// ghdouble start REMOTE [LIMIT WINDOW] | issue TITLE BODY | comment N AUTHOR BODY | show N
// | check N NAME CONCLUSION LOG | review N AUTHOR STATE BODY | merge N | close N
// | app KEYFILE LIFE | app-contents PERM | revoke | minted:
// the script's GitHub double on 127.0.0.1 over HTTPS (as a GitHub
// Enterprise: GH_HOST, GH_ENTERPRISE_TOKEN, SSL_CERT_FILE and GIT_SSL_CAINFO
// set for the commands after; GHD the host to name issues with), acme/tool's
// branches those of the bare repository REMOTE (served to git at
// https://$GHD/acme/tool.git too), a token's rate limit LIMIT requests a
// WINDOW (default GitHub's 5000 an hour); an issue opened by maint with the
// label agentloop (its number on stdout); a comment; and what issue N and
// the pull requests hold now, on stdout. Every answer the double sent is
// checked against GitHub's description at each command and at the end.
// check puts a completed check run on pull request N's head as its branch
// is now on REMOTE (LOG its job's log); review submits a review of pull
// request N; merge and close end it as a person's button does. app makes a
// GitHub App (id 42, agentloop-app[bot]) installed on acme/tool (installation
// 7) whose tokens live LIFE, its new private key written to KEYFILE; app-contents
// sets its installation's Contents permission (read: its pushes refused); revoke
// revokes the tokens it minted; minted prints how many it minted.
func cmdGHDouble(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: ghdouble start REMOTE [LIMIT WINDOW] | issue TITLE BODY | comment N AUTHOR BODY | show N | check N NAME CONCLUSION LOG | review N AUTHOR STATE BODY | merge N | close N | app KEYFILE LIFE | app-contents PERM | revoke | minted")
	}
	h := ts.Value(doubleKey{}).(*doubleHolder)
	if args[0] != "start" && h.s == nil {
		ts.Fatalf("ghdouble: start it first")
	}
	defer func() {
		if h.s != nil {
			for _, v := range h.s.Violations() {
				ts.Fatalf("the GitHub double answered what GitHub's description does not allow: %s", v)
			}
		}
	}()
	switch {
	case args[0] == "start" && (len(args) == 2 || len(args) == 4):
		dir := ts.MkAbs(".ghdouble")
		ts.Check(os.MkdirAll(dir, 0o755))
		opts := ghdouble.Options{TLS: true, Dir: dir}
		if len(args) == 4 { // a primary rate limit of LIMIT requests per WINDOW
			limit, err := strconv.Atoi(args[2])
			ts.Check(err)
			window, err := time.ParseDuration(args[3])
			ts.Check(err)
			opts.Limit, opts.Window = limit, window
		}
		s, err := ghdouble.New(opts)
		ts.Check(err)
		ts.Check(s.Listen("127.0.0.1:0"))
		h.s, h.remote = s, ts.MkAbs(args[1])
		ts.Defer(s.Close)
		s.AddToken(doubleToken, ghdouble.Token{Login: "agentloop-bot", Scopes: []string{"repo"}})
		s.AddRepo(doubleRepo, ghdouble.Repo{Remote: ts.MkAbs(args[1])})
		s.SetPermission(doubleRepo, "agentloop-bot", "write")
		s.SetPermission(doubleRepo, "maint", "maintain")
		ts.Setenv("GH_HOST", s.Host())
		ts.Setenv("GH_ENTERPRISE_TOKEN", doubleToken)
		ts.Setenv("SSL_CERT_FILE", s.CAFile())
		ts.Setenv("GIT_SSL_CAINFO", s.CAFile()) // git's, for the double's https://$GHD/acme/tool.git
		ts.Setenv("GHD", s.Host())
	case args[0] == "issue" && len(args) == 3:
		n := h.s.AddIssue(doubleRepo, ghdouble.Issue{Title: args[1], Body: args[2], Author: "maint", Labels: []string{"agentloop"}})
		fmt.Fprintln(ts.Stdout(), n)
	case args[0] == "comment" && len(args) == 4:
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		h.s.AddComment(doubleRepo, n, args[2], args[3])
	case args[0] == "check" && len(args) == 5:
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		var head string
		for _, pr := range h.s.PRs(doubleRepo) {
			if pr.Number == n {
				head = pr.Head
			}
		}
		if head == "" {
			ts.Fatalf("no pull request %d", n)
		}
		sha, err := exec.Command("git", "-C", h.remote, "rev-parse", "--verify", "refs/heads/"+head).Output()
		ts.Check(err)
		h.s.AddCheckRun(doubleRepo, strings.TrimSpace(string(sha)), ghdouble.CheckRun{Name: args[2], Conclusion: args[3], Log: args[4]})
	case args[0] == "review" && len(args) == 5:
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		h.s.AddReview(doubleRepo, n, ghdouble.Review{Author: args[2], State: args[3], Body: args[4]})
	case (args[0] == "merge" || args[0] == "close") && len(args) == 2:
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		if args[0] == "merge" {
			h.s.MergePR(doubleRepo, n)
		} else {
			h.s.ClosePR(doubleRepo, n)
		}
	case args[0] == "app" && len(args) == 3:
		life, err := time.ParseDuration(args[2])
		ts.Check(err)
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600))
		h.s.AddApp(ghdouble.App{ID: 42, Slug: "agentloop-app", Key: &key.PublicKey, TokenLife: life})
		h.s.Install(ghdouble.Installation{ID: 7, App: 42, Repos: []string{doubleRepo}})
	case args[0] == "app-contents" && len(args) == 2:
		h.s.Install(ghdouble.Installation{ID: 7, App: 42, Repos: []string{doubleRepo}, Contents: args[1]})
	case args[0] == "revoke" && len(args) == 1:
		h.s.RevokeTokens()
	case args[0] == "minted" && len(args) == 1:
		fmt.Fprintln(ts.Stdout(), h.s.Minted())
	case args[0] == "show" && len(args) == 2:
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		is, ok := h.s.Issue(doubleRepo, n)
		if !ok {
			ts.Fatalf("no issue %d", n)
		}
		labels := slices.Sorted(slices.Values(is.Labels))
		fmt.Fprintf(ts.Stdout(), "labels: %s\n", strings.Join(labels, " "))
		for _, c := range is.Comments {
			fmt.Fprintf(ts.Stdout(), "comment by %s (%d edits):\n%s\n", c.Author, len(c.Edits), c.Body)
		}
		for _, pr := range h.s.PRs(doubleRepo) {
			fmt.Fprintf(ts.Stdout(), "pull request #%d %s <- %s (%s) by %s: %s\n%s\n", pr.Number, pr.Base, pr.Head, pr.State, pr.Author, pr.Title, pr.Body)
		}
	default:
		ts.Fatalf("ghdouble: unknown use %q", args)
	}
}
