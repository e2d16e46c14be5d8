//go:build temporal && unix

package temporal_test

import (
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/testenv"
)

// httpsRepo is [fleet.repo] with the remote on srv, an HTTPS git server
// that takes its tokens only (acme/tool.git): the clones' origin is its
// URL, and git trusts its certificate (GIT_SSL_CAINFO, for every process
// the fleet starts).
func (f *fleet) httpsRepo(srv *testenv.GitHTTPS, clones ...string) []string {
	f.t.Helper()
	bare := srv.Bare(f.t, "acme/tool.git")
	seed := filepath.Join(f.dir, "seed")
	f.git(f.dir, "clone", "-q", bare, seed)
	for name, text := range map[string]string{"README.md": "a project\n", ".gitignore": ".agentloop/\n"} {
		if err := os.WriteFile(filepath.Join(seed, name), []byte(text), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
	f.git(seed, "add", "-A")
	f.git(seed, "commit", "-q", "-m", "start")
	f.git(seed, "push", "-q", "origin", "HEAD")
	var dirs []string
	for _, c := range clones {
		d := filepath.Join(f.dir, c)
		f.git(f.dir, "clone", "-q", bare, d)
		f.git(d, "remote", "set-url", "origin", srv.URL+"/acme/tool.git")
		dirs = append(dirs, d)
	}
	f.env = append(f.env, "GIT_SSL_CAINFO="+srv.CAFile)
	return dirs
}

// TestWorkersShareCheckpointsWithTheForgeToken: two workers share their
// checkpoints on an HTTPS remote that takes only the forge's token, which
// each has in its environment only (GH_ENTERPRISE_TOKEN, the remote's host
// not github.com's): the first pushes the run's checkpoints with it, is
// killed mid-iteration, and the second fetches them with it to rebuild the
// run in its clone and finish it. Each says at its start which credential
// its git uses, by name; the token is on no process's command line while
// git runs and in no file of the clones.
func TestWorkersShareCheckpointsWithTheForgeToken(t *testing.T) {
	f := newFleet(t)
	srv := testenv.StartGitHTTPS(t)
	const tok = "ghp_worker0123456789abcdefghij"
	srv.Allow(tok, true)
	clones := f.httpsRepo(srv, "a", "b")
	a, b := clones[0], clones[1]
	f.env = append(f.env, "GH_ENTERPRISE_TOKEN="+tok)
	f.plan(hangInTheSecond)
	wa := f.start(a, "worker", "--queue", "machine-a", "--work-tree", a, "--checkpoint-remote", "origin", "--allow-cmd", "fakeagent")
	run := f.start(a, "run", "--engine", "temporal", "--agent-cmd", "fakeagent", "--max-iterations", "3", "--heartbeat-timeout", "3s")
	f.waitFile(filepath.Join(f.dir, "fakeagent", "pids"))
	wb := f.start(b, "worker", "--queue", "machine-b", "--work-tree", b, "--checkpoint-remote", "origin", "--allow-cmd", "fakeagent")
	wa.kill()
	f.agentsGone()
	if code := run.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("run exited %d:\n%s", code, run.out.String())
	}
	v := f.view("build")
	if v.State.Status != state.StatusCompleted {
		t.Errorf("run %s (%s), want completed", v.State.Status, v.State.Reason)
	}
	checkIterations(t, v, 3)
	if got := f.read(filepath.Join(b, "notes.txt")); got != "iteration\niteration\niteration\n" {
		t.Errorf("clone b: notes.txt = %q: want iteration 1's work rebuilt from the remote, then iterations 2 and 3", got)
	}
	journal := fmt.Sprintf("refs/agentloop/build/%s/journal", v.State.RunID)
	if refs := f.git(filepath.Join(srv.Root, "acme", "tool.git"), "for-each-ref", "--format=%(refname)", "refs/agentloop/"); refs != journal+"\n" {
		t.Errorf("the remote's checkpoint refs:\n%s\nwant %s", refs, journal)
	}
	said := "Worker: git pushes to and fetches from the remote origin (" + srv.URL + "/acme/tool.git) with GH_ENTERPRISE_TOKEN (for the https remotes under " + srv.URL + "/), given to git through its environment only; it needs contents: write"
	for _, w := range []*proc{wa, wb} {
		if out := w.out.String(); !strings.Contains(out, said) || strings.Contains(out, tok) {
			t.Errorf("the worker does not say which credential its git uses (%q), or says the token:\n%s", said, out)
		}
	}
	if ex := srv.Exposed(); len(ex) > 0 {
		t.Errorf("a command line held the token while git ran: %q", ex)
	}
	basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + tok))
	for _, dir := range clones {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if b, _ := os.ReadFile(p); strings.Contains(string(b), tok) || strings.Contains(string(b), basic) {
				t.Errorf("%s holds the token", p)
			}
			return nil
		})
	}
}

// TestWorkerPushRefusedNamesTheToken: a worker whose token the HTTPS
// remote refuses runs its run to its end, and says (an error, without -v) that its
// checkpoints could not be shared: the remote refused GH_ENTERPRISE_TOKEN, which needs
// contents: write (never the token). A worker with no token says at its
// start that git pushes with its own credentials, and why.
func TestWorkerPushRefusedNamesTheToken(t *testing.T) {
	f := newFleet(t)
	srv := testenv.StartGitHTTPS(t)
	work := f.httpsRepo(srv, "work")[0]
	noToken := slices.Clone(f.env)
	const tok = "ghp_refused0123456789abcdefghij"
	f.env = append(f.env, "GH_ENTERPRISE_TOKEN="+tok)
	f.plan("[*]\nappend notes.txt iteration\\n\n")
	// Without -v: a credential the remote refused is an error, shown.
	w := f.start(work, "worker", "--work-tree", work, "--checkpoint-remote", "origin", "--allow-cmd", "fakeagent")
	if code, out := f.run(work, "run", "--engine", "temporal", "--agent-cmd", "fakeagent", "--max-iterations", "1"); code != 0 {
		t.Fatalf("run exited %d:\n%s", code, out)
	}
	refused := "push the checkpoints refs/agentloop/build/"
	named := "GH_ENTERPRISE_TOKEN, the credential agentloop gave git, needs contents: write"
	deadline := time.Now().Add(30 * time.Second)
	for out := w.out.String(); !strings.Contains(out, refused) || !strings.Contains(out, named); out = w.out.String() {
		if time.Now().After(deadline) {
			t.Fatalf("the worker does not say that the remote refused GH_ENTERPRISE_TOKEN and what it needs:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if strings.Contains(w.out.String(), tok) {
		t.Errorf("the worker said the token:\n%s", w.out.String())
	}
	w.kill()

	f.env = append(noToken, "GH_ENTERPRISE_TOKEN=", "GITHUB_ENTERPRISE_TOKEN=")
	w = f.start(work, "worker", "--work-tree", work, "--checkpoint-remote", "origin", "--allow-cmd", "fakeagent")
	own := "Worker: git pushes to and fetches from the remote origin (" + srv.URL + "/acme/tool.git) with its own credentials: github " + strings.TrimPrefix(srv.URL, "https://") + ": no token: set GH_ENTERPRISE_TOKEN"
	deadline = time.Now().Add(30 * time.Second)
	for !strings.Contains(w.out.String(), own) {
		if time.Now().After(deadline) {
			t.Fatalf("the worker with no token does not say git pushes with its own credentials (%q):\n%s", own, w.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
