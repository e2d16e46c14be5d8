//go:build temporal

package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/agentloop/agentloop/internal/temporal"
)

// Stop is `agentloop stop NAME --engine temporal`: the run's workflow ends
// the run after its current iteration (the steer update), or at once (now:
// the workflow is cancelled and its step's agent stopped on its worker).
// Either way the run ends interrupted, to be resumed.
func (f *Fleet) Stop(ctx context.Context, name string, now bool) error {
	v, key, err := f.find(ctx, name)
	if err != nil {
		return err
	}
	st := v.State
	if st.Status.Ended() && !v.Waiting {
		return fmt.Errorf("run %s is not running (%s); nothing to stop", name, st.Status)
	}
	if now {
		if err := temporal.Cancel(ctx, f.c, key); err != nil {
			return err
		}
		fmt.Fprintf(f.sh.Stdout, "Interrupted %s on Temporal: its workflow is cancelled and its agent stopped. Resume with: agentloop resume %s --engine temporal\n", name, name)
		return nil
	}
	if v.Waiting {
		return usageError("run %s waits for your answer to its escalation: end it with 'agentloop resume %s --abort --engine temporal', or stop it with --now", name, name)
	}
	ack, err := temporal.SteerRun(ctx, f.c, key, temporal.Steer{Stop: true, At: f.sh.Now(), By: f.user()})
	if err != nil {
		return err
	}
	fmt.Fprintf(f.sh.Stdout, "%s stops when iteration %d ends. Resume with: agentloop resume %s --engine temporal\n", name, ack.Iteration+1, name)
	return nil
}

// Guide is `agentloop guide NAME TEXT --engine temporal`: the steer update
// queues the guidance in the run's workflow, whose loop takes it at its next
// iteration boundary.
func (f *Fleet) Guide(ctx context.Context, name, text string) error {
	if text == "" {
		return usageError("guide: the guidance is empty; say what the loop should do, as agentloop guide NAME \"use the v2 API\"")
	}
	v, key, err := f.find(ctx, name)
	if err != nil {
		return err
	}
	switch st := v.State; {
	case v.Waiting:
		return usageError("run %s waits for your answer to its escalation: agentloop resume %s --guidance \"...\" --engine temporal", name, name)
	case st.Status.Ended():
		return usageError("run %s ended (%s): give the guidance as it goes on: agentloop resume %s --guidance \"...\" --engine temporal", name, st.Status, name)
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	at := f.sh.Now()
	s := temporal.Steer{ID: fmt.Sprintf("guide-%s-%s", at.UTC().Format("20060102T150405.000000000"), hex.EncodeToString(b[:])), Text: text, At: at, By: f.user()}
	ack, err := temporal.SteerRun(ctx, f.c, key, s)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.sh.Stdout, "Guidance queued for %s on Temporal (in iteration %d): its next iteration takes it.\n", name, ack.Iteration+1)
	return nil
}

// user names the person at the keyboard; "" when not known.
func (f *Fleet) user() string {
	if f.sh.User == nil {
		return ""
	}
	return f.sh.User()
}

// usageError is a mistake of the person's, to fix before trying again.
func usageError(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}
