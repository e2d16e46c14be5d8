package temporal

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
)

// heartbeatMethod is the gRPC method of an activity's heartbeat.
const heartbeatMethod = "/temporal.api.workflowservice.v1.WorkflowService/RecordActivityTaskHeartbeat"

// TestRealServerSlowHeartbeatAnswersStopNothing: on a real dev server, a
// worker whose heartbeats reach the server at once but are answered 2 s
// later (a loaded worker or server), under a heartbeat timeout of 3 s, runs
// an 8 s iteration to its end, once: the server heard from it all along.
// Through the SDK's own heartbeat, a call answered after 1.2 s (0.4 of the
// timeout) cancels the step, every attempt of it, and the run never ends.
func TestRealServerSlowHeartbeatAnswersStopNothing(t *testing.T) {
	srv, c := newDevServer(t)
	defer c.Close()
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	s := &Steps{Log: testLogger(), Plan: planIn(shAgent(t, "cat >/dev/null; echo called >> "+calls+"; sleep 8"))}
	queue := "slow-" + fmt.Sprint(time.Now().UnixNano())
	startStepWorker(t, srv.addr, queue, s, func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoke grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		err := invoke(ctx, method, req, reply, cc, opts...)
		if err != nil || method != heartbeatMethod {
			return err
		}
		select {
		case <-time.After(2 * time.Second):
			return nil
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		}
	})
	in := input(budget.Limits{MaxIterations: 1, FailureThreshold: 3}, false)
	in.Run.Name, in.Run.WorkDir, in.HeartbeatTimeout = "slow", t.TempDir(), 3*time.Second
	out := runToEnd(t, c, queue, in, 2*time.Minute, calls)
	if out.Status != state.StatusCompleted {
		t.Errorf("outcome %s %q, want completed", out.Status, out.Reason)
	}
	if n := bytes.Count(readOr(calls), []byte("called")); n != 1 {
		t.Errorf("the agent was called %d times, want once (no attempt cut for a slow heartbeat)", n)
	}
}

// TestRealServerRetryOnTheSameWorkerWaitsForTheOlder: on a real dev server,
// the first attempt of an iteration runs on a worker whose heartbeats the
// server never gets (lost on the way; the worker hears nothing wrong); the
// server runs the step again, on the same worker (the only one), while the
// first attempt's agent runs on. The second attempt stops the first, and
// restores the iteration's start checkpoint and runs its agent only once
// the first's agent has ended. Run with -race.
func TestRealServerRetryOnTheSameWorkerWaitsForTheOlder(t *testing.T) {
	srv, c := newDevServer(t)
	defer c.Close()
	clone, _ := sharedClones(t)
	seen := t.TempDir()
	a := shAgent(t, `cat >/dev/null; echo "$$" >> work.txt
if [ -e "$SEEN/first.pid" ]; then
	if kill -0 "$(cat "$SEEN/first.pid")" 2>/dev/null; then echo together; else echo alone; fi > "$SEEN/second.txt"
else
	echo $$ > "$SEEN/first.pid.tmp" && mv "$SEEN/first.pid.tmp" "$SEEN/first.pid"
	while :; do echo "$$" >> work.txt; sleep 0.1; done
fi`)
	a.Env = map[string]string{"SEEN": seen}
	planned := planIn(a)
	s := &Steps{Log: testLogger(), Plan: func(ctx context.Context, r RunRef) (*plan.Plan, error) {
		p, err := planned(ctx, r)
		if p != nil {
			p.Proc.Git.Checkpoint = true
		}
		return p, err
	}}
	var mu sync.Mutex
	var first []byte // the task token of the first attempt that sent a heartbeat
	queue := "twice-" + fmt.Sprint(time.Now().UnixNano())
	startStepWorker(t, srv.addr, queue, s, func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoke grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if hb, ok := req.(*workflowservice.RecordActivityTaskHeartbeatRequest); ok {
			mu.Lock()
			if first == nil {
				first = hb.GetTaskToken()
			}
			lost := bytes.Equal(first, hb.GetTaskToken())
			mu.Unlock()
			if lost {
				return nil // an empty answer: go on
			}
		}
		return invoke(ctx, method, req, reply, cc, opts...)
	})
	in := input(budget.Limits{MaxIterations: 1, FailureThreshold: 3}, false)
	in.Run.Name, in.Run.WorkDir, in.HeartbeatTimeout = "twice", clone, 3*time.Second
	out := runToEnd(t, c, queue, in, 2*time.Minute, filepath.Join(seen, "second.txt"))
	if out.Status != state.StatusCompleted {
		t.Errorf("outcome %s %q, want completed", out.Status, out.Reason)
	}
	if b := strings.TrimSpace(string(readOr(filepath.Join(seen, "second.txt")))); b != "alone" {
		t.Errorf("the second attempt's agent, as it started: %q, want alone (the first one's agent ended)", b)
	}
}

// startStepWorker starts a worker of the run workflow and of steps s on
// queue, its connection to the server at addr through intercept; it stops
// when the test ends.
func startStepWorker(t *testing.T, addr, queue string, s *Steps, intercept grpc.UnaryClientInterceptor) {
	t.Helper()
	c, err := client.Dial(client.Options{
		HostPort: addr, Namespace: "default", Logger: tlog.NewStructuredLogger(testLogger()),
		ConnectionOptions: client.ConnectionOptions{DialOptions: []grpc.DialOption{grpc.WithChainUnaryInterceptor(intercept)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	w := NewWorker(t.Context(), c, Server{TaskQueue: queue}, s, "", time.Second)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.Stop()
		c.Close()
	})
}

// runToEnd starts the run of in on queue and waits up to limit for its
// outcome; the file named is shown if it does not end.
func runToEnd(t *testing.T, c client.Client, queue string, in RunInput, limit time.Duration, file string) loop.Outcome {
	t.Helper()
	if err := Start(t.Context(), c, Server{TaskQueue: queue}, in, time.Now()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	var out loop.Outcome
	if err := c.GetWorkflow(ctx, WorkflowID(in.Run.Name), "").Get(ctx, &out); err != nil {
		t.Fatalf("run %s did not end within %s: %v (%s: %q)", in.Run.Name, limit, err, file, readOr(file))
	}
	return out
}

// readOr is the file's content, nil when it cannot be read.
func readOr(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}
