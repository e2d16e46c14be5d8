package ghdouble

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCommandServesASeed runs the ghdouble command on a seed file and asks
// it as a client would, with the CA it printed.
func TestCommandServesASeed(t *testing.T) {
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed.yaml")
	os.WriteFile(seed, []byte(`tokens:
  - {token: tok, login: alice, scopes: [repo]}
repos:
  - name: acme/tool
    permissions: {alice: write}
    issues:
      - {title: first, author: bob, labels: [agentloop], comments: [{author: bob, body: hi}]}
      - {title: second, author: bob, blocked_by: [1]}
    pulls:
      - title: p
        author: alice
        head: feature
        checks: [{name: test, conclusion: failure, log: "FAIL\n"}]
        reviews: [{author: carol, state: CHANGES_REQUESTED, body: fix}]
        threads: [{path: a.go, line: 1, comments: [{author: carol, body: why}]}]
`), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--tls", "--seed", seed, "--dir", filepath.Join(dir, "ca", "new")}, pw, io.Discard)
		pw.Close()
	}()
	env := map[string]string{}
	sc := bufio.NewScanner(pr)
	for len(env) < 3 && sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		env[k] = v
	}
	go io.Copy(io.Discard, pr)
	if env["SSL_CERT_FILE"] != filepath.Join(dir, "ca", "new", "ca.pem") || !strings.HasPrefix(env["GHDOUBLE_URL"], "https://127.0.0.1:") ||
		!strings.HasSuffix(env["GHDOUBLE_URL"], env["GH_HOST"]) {
		t.Fatalf("the command printed %v", env)
	}
	c := &client{t: t, hc: clientFor(t, env["SSL_CERT_FILE"]), base: env["GHDOUBLE_URL"], token: "tok"}
	if r := c.do("GET", "/api/v3/repos/acme/tool/issues/2/dependencies/blocked_by", ""); r.status != 200 || !strings.Contains(string(r.body), `"title":"first"`) {
		t.Errorf("blocked_by from the seed: %d %s", r.status, r.body)
	}
	if r := c.do("GET", "/repos/acme/tool/commits/feature/check-runs", ""); !strings.Contains(string(r.body), `"conclusion":"failure"`) {
		t.Errorf("check runs from the seed: %s", r.body)
	}
	var stats struct {
		Requests   map[string]int
		Violations []string
	}
	json.Unmarshal(c.do("GET", "/_ghdouble/stats", "").body, &stats)
	if stats.Requests["GET /repos/{owner}/{repo}/commits/{ref}/check-runs"] != 1 || len(stats.Violations) != 0 {
		t.Errorf("stats: %+v", stats)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the command did not end with its context")
	}
}

func TestSeedRefusesAnUnknownKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seed.yaml")
	os.WriteFile(path, []byte("repos:\n  - name: a/b\n    isues: []\n"), 0o644)
	if _, err := ReadSeed(path); err == nil || !strings.Contains(err.Error(), "line 3: field isues not found") {
		t.Errorf("ReadSeed = %v", err)
	}
}

func clientFor(t *testing.T, caFile string) *http.Client {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
