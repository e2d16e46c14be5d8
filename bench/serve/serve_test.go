package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain is the serve process too, when the bench's test starts it.
func TestMain(m *testing.M) {
	if host := os.Getenv(childEnv); host != "" {
		os.Exit(serveChild(host))
	}
	os.Exit(m.Run())
}

// TestSmall runs the bench small: 50 issues, half of them blocked, 20 more
// coming while it runs. Each issue is taken once, none never; with nothing
// changed serve asks nothing GitHub counts; the double saw nothing GitHub's
// description forbids.
func TestSmall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out strings.Builder
	r, err := run(ctx, config{issues: 50, blocked: 0.5, every: 20 * time.Millisecond, idle: 40, churn: 2 * time.Second, rate: 10}, &out)
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.anomaly(); err != nil {
		t.Error(err)
	}
	if len(r.expected) < 65 || r.idle.polls < 40 || r.idle.notModified < 2*r.idle.polls {
		t.Errorf("%d issues, %d idle polls with %d conditional requests: want 70 issues, 40 polls of two lists each", len(r.expected), r.idle.polls, r.idle.notModified)
	}
}
