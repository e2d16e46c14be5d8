package gitx

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkShareCheckpoints is a worker's push of an iteration's two new
// checkpoints of its run to a remote that holds what the other runs of a
// fleet (3 iterations each, pushed by another clone) pushed before: one ref
// per checkpoint (per-ref, how workers pushed before the journal) or one
// journal per run (journal, [ShareCheckpoints]). Every ref the remote holds
// costs each push to it.
func BenchmarkShareCheckpoints(b *testing.B) {
	for _, runs := range []int{1, 500, 1000} {
		for _, style := range []string{"per-ref", "journal"} {
			b.Run(fmt.Sprintf("%s/runs=%d", style, runs), func(b *testing.B) {
				benchShare(b, runs, style == "journal")
			})
		}
	}
}

func benchShare(b *testing.B, runs int, journal bool) {
	ctx := b.Context()
	dir := b.TempDir()
	a, remote, w := filepath.Join(dir, "a"), filepath.Join(dir, "remote.git"), filepath.Join(dir, "worker")
	mustGit(b, dir, "", "init", "-q", "-b", "main", a)
	mustGit(b, dir, "", "init", "-q", "--bare", remote)
	mustGit(b, a, "", "remote", "add", "origin", remote)
	mustGit(b, a, "", "commit", "-q", "--allow-empty", "-m", "start")
	mustGit(b, a, "", "push", "-q", "origin", "main")
	mustGit(b, dir, "", "clone", "-q", remote, w)
	// Each run's 3 iterations: 6 checkpoints, each its own commit.
	var stream strings.Builder
	prefixes := make([]string, runs)
	for r := range runs {
		prefixes[r] = fmt.Sprintf("refs/agentloop/bench/r%d/", r)
		for i := 1; i <= 3; i++ {
			for _, ref := range []string{fmt.Sprintf("iter-%d-start", i), fmt.Sprintf("iter-%d", i)} {
				msg := prefixes[r] + ref
				fmt.Fprintf(&stream, "commit %s\ncommitter a <a@b> 1 +0000\ndata %d\n%s\ndeleteall\n\n", msg, len(msg)+1, msg)
			}
		}
	}
	mustGit(b, a, stream.String(), "fast-import", "--quiet")
	if journal {
		if err := ShareCheckpoints(ctx, a, "origin", prefixes...); err != nil {
			b.Fatal(err)
		}
	} else {
		mustGit(b, a, "", "push", "-q", "origin", "+refs/agentloop/*:refs/agentloop/*")
	}
	// The worker's run, not among the fleet's.
	tree := mustGit(b, w, "", "mktree")
	p := "refs/agentloop/bench/mine/"
	n := 0
	for b.Loop() {
		b.StopTimer()
		n++
		for _, ref := range []string{fmt.Sprintf("iter-%d-start", n), fmt.Sprintf("iter-%d", n)} {
			c := mustGit(b, w, "", "commit-tree", "-m", p+ref, tree)
			mustGit(b, w, "", "update-ref", p+ref, c)
		}
		b.StartTimer()
		if journal {
			if err := ShareCheckpoints(ctx, w, "origin", p); err != nil {
				b.Fatal(err)
			}
		} else {
			push := cmd{dir: w, env: sshBatchEnv(ctx, w), args: []string{"push", "--quiet", "origin", "+" + p + "*:" + p + "*"}}
			if _, err := push.run(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(lines(mustGit(b, remote, "", "for-each-ref", "refs/agentloop/")))), "remote-refs")
}

// mustGit runs git args in dir with stdin and fails the benchmark on error.
func mustGit(b *testing.B, dir, stdin string, args ...string) string {
	b.Helper()
	env := []string{"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b"}
	out, err := cmd{dir: dir, env: env, stdin: strings.NewReader(stdin), args: args}.run(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	return strings.TrimSpace(out)
}
