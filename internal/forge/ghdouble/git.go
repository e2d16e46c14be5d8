package ghdouble

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// gitRoute is a path of git's smart HTTP protocol on a repository, as
// GitHub serves it (https://HOST/OWNER/NAME.git/info/refs and the
// git-upload-pack and git-receive-pack under it; .git may be left out):
// the repository, the part git http-backend answers, and whether it is a
// push.
func gitRoute(r *http.Request) (owner, name, prefix string, push, ok bool) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	switch {
	case len(parts) == 4 && parts[2] == "info" && parts[3] == "refs":
		push = r.URL.Query().Get("service") == "git-receive-pack"
	case len(parts) == 3 && (parts[2] == "git-upload-pack" || parts[2] == "git-receive-pack"):
		push = parts[2] == "git-receive-pack"
	default:
		return "", "", "", false, false
	}
	if parts[0] == "" || parts[1] == "" || parts[0] == "repos" || parts[0] == "api" {
		return "", "", "", false, false
	}
	return parts[0], strings.TrimSuffix(parts[1], ".git"), "/" + parts[0] + "/" + parts[1], push, true
}

// serveGit answers git over HTTP on a repository whose Remote is set,
// through git http-backend (git's own CGI), as GitHub does: the token is
// HTTP Basic's password (GitHub takes any user name, x-access-token for an
// App's), an installation token past its hour is refused, a push needs a
// login that may write (403 "Permission to OWNER/NAME.git denied to
// LOGIN."), and a private repository a login that may read. A token on
// any command line of this machine while it is served (Linux's /proc) is a
// violation: ps would show it.
func (s *Server) serveGit(w http.ResponseWriter, r *http.Request, owner, name, prefix string, push bool) {
	s.mu.Lock()
	rp := s.repos[repoKey(owner, name)]
	var tok Token
	known, secret := false, ""
	if _, pass, ok := r.BasicAuth(); ok && pass != "" {
		secret = pass
		tok, known = s.tokens[pass]
		if exp, ok := s.expiry[pass]; ok && !s.now().Before(exp) {
			known = false
		}
	}
	status, msg, remote := 0, "", ""
	switch {
	case rp == nil || rp.setup.Remote == "":
		status, msg = http.StatusNotFound, "Repository not found."
	case !known && (push || rp.setup.Private):
		status, msg = http.StatusUnauthorized, "Invalid username or token. Password authentication is not supported for Git operations."
	case push && (tok.ReadOnly || !canWrite(rp.perm(tok.Login))):
		status, msg = http.StatusForbidden, fmt.Sprintf("Permission to %s/%s.git denied to %s.", rp.owner, rp.name, tok.Login)
	case rp.setup.Private && rp.perm(tok.Login) == "":
		status, msg = http.StatusNotFound, "Repository not found."
	default:
		remote = rp.setup.Remote
	}
	endpoint := "GIT " + map[bool]string{true: "git-receive-pack", false: "git-upload-pack"}[push]
	s.log = append(s.log, Request{Method: r.Method, Path: r.URL.Path, Endpoint: endpoint, Status: max(status, 200), Login: tok.Login})
	if secret != "" {
		s.bad = append(s.bad, exposed(secret)...)
	}
	s.mu.Unlock()
	if status != 0 {
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
		}
		http.Error(w, msg, status)
		return
	}
	backend, err := httpBackend()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	abs, _ := filepath.Abs(remote)
	h := &cgi.Handler{Path: backend, Root: prefix,
		Env: []string{"GIT_PROJECT_ROOT=" + abs, "GIT_HTTP_EXPORT_ALL=1", "REMOTE_USER=" + tok.Login}}
	h.ServeHTTP(w, r)
}

func canWrite(perm string) bool { return perm == "write" || perm == "maintain" || perm == "admin" }

// httpBackend is the path of git http-backend.
func httpBackend() (string, error) {
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return "", fmt.Errorf("git --exec-path: %w", err)
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no git http-backend: %w", err)
	}
	return p, nil
}

// exposed are the command lines of this machine's processes that hold
// secret, in the clear or as HTTP Basic's encoding (Linux only).
func exposed(secret string) []string {
	if runtime.GOOS != "linux" {
		return nil
	}
	basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + secret))
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if s := string(b); strings.Contains(s, secret) || strings.Contains(s, basic) {
			out = append(out, "a token sent to git over HTTP is on the command line of "+filepath.Dir(f)+" (ps shows it)")
		}
	}
	return out
}
