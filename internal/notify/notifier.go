package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/redact"
	"github.com/agentloop/agentloop/internal/state"
)

// Options are what a [Notifier] takes of the process it runs in.
type Options struct {
	Getenv   func(string) string           // the variables of URLs, secrets and tokens; nil: os.Getenv
	Environ  []string                      // the environment redaction knows secrets from; nil: os.Environ()
	LookPath func(string) (string, error)  // finds notify-send or osascript; nil: no desktop
	GOOS     string                        // "": runtime.GOOS
	HTTP     *http.Client                  // nil: a client of its own
	Now      func() time.Time              // nil: time.Now
	Log      *slog.Logger                  // nil: discarded
	Backoff  func(retry int) time.Duration // the wait before retry n (1-based); nil: 1s, 2s, 4s…
	// MaxInFlight bounds the deliveries under way; one more is not started
	// but recorded as failed (0: 64).
	MaxInFlight int
}

// Notifier delivers notifications in the background. Its methods may be
// called from any goroutine; a nil Notifier sends nothing.
type Notifier struct {
	cfg       target.Config
	o         Options
	receivers []receiver
	red       *redact.Redactor
	base      context.Context // delivery: cancelled when Close gives up
	cancel    context.CancelFunc
	slots     chan struct{}
	wg        sync.WaitGroup
	mu        sync.Mutex
	closed    bool
}

// New is the notifier of c, or nil when c configures no receiver. ctx carries
// what commands run under (not its cancellation: deliveries outlive a run
// interrupted by Ctrl-C, up to [Notifier.Close]). An error names the setting
// that cannot work (a variable named for a URL, a secret or a token that is
// not set).
func New(ctx context.Context, c target.Config, o Options) (*Notifier, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Backoff == nil {
		o.Backoff = func(n int) time.Duration { return time.Second << min(n-1, 5) }
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 64
	}
	if c.Timeout <= 0 {
		c.Timeout = target.DefaultTimeout
	}
	c.Retries = max(c.Retries, 0)
	rs, err := receivers(c, o)
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	base, cancel := context.WithCancel(context.WithoutCancel(ctx))
	return &Notifier{cfg: c, o: o, receivers: rs, red: redact.New(o.Environ), base: base, cancel: cancel,
		slots: make(chan struct{}, o.MaxInFlight)}, nil
}

// Rules are the notifier's choices of what to tell ([Of]).
func (n *Notifier) Rules() Rules {
	if n == nil {
		return Rules{}
	}
	return Rules{RateLimitAfter: cmpOr(n.cfg.RateLimitAfter, target.DefaultRateLimitAfter)}
}

// ExitWait is how long a delivery can take, every attempt and the waits
// between them, and a second more: how long a process that ends waits, at
// most, for the notifications it sent last.
func (n *Notifier) ExitWait() time.Duration {
	if n == nil {
		return 0
	}
	d := time.Duration(1+n.cfg.Retries)*n.cfg.Timeout + time.Second
	for r := 1; r <= n.cfg.Retries; r++ {
		d += n.o.Backoff(r)
	}
	return d
}

// Pending is the number of deliveries under way.
func (n *Notifier) Pending() int {
	if n == nil {
		return 0
	}
	return len(n.slots)
}

// Targets names the receivers, as the events name them.
func (n *Notifier) Targets() []string {
	if n == nil {
		return nil
	}
	var out []string
	for _, r := range n.receivers {
		out = append(out, r.name())
	}
	return out
}

// Send delivers nt to every receiver in the background, when its kind is
// told, and returns at once. record is told of each delivery and each failure
// (nil: they are only logged); it is called from other goroutines.
func (n *Notifier) Send(nt Notification, record func(state.Event)) {
	if n == nil || !n.cfg.Told(nt.Type) {
		return
	}
	if record == nil {
		record = func(state.Event) {}
	}
	nt = nt.Redacted(n.red)
	body, err := json.Marshal(nt)
	if err != nil {
		n.o.Log.Error("encode the notification", "type", nt.Type, "error", err)
		return
	}
	n.mu.Lock()
	closed := n.closed
	n.mu.Unlock()
	for _, r := range n.receivers {
		d := delivery{n: n, r: r, nt: nt, body: body, record: record}
		if closed {
			d.failed(0, 0, errors.New("agentloop was exiting"))
			continue
		}
		select {
		case n.slots <- struct{}{}:
		default:
			d.failed(0, 0, fmt.Errorf("%d notifications are under way already", cap(n.slots)))
			continue
		}
		n.wg.Add(1)
		go func() {
			defer func() { <-n.slots; n.wg.Done() }()
			d.run()
		}()
	}
}

// Close waits for the deliveries under way until ctx ends; those still under
// way then are given up (each recorded as failed). Sends after Close are
// recorded as failed at once.
func (n *Notifier) Close(ctx context.Context) {
	if n == nil {
		return
	}
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	done := make(chan struct{})
	go func() { n.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		n.cancel()
		<-done
	}
	n.cancel()
}

// delivery is one notification to one receiver.
type delivery struct {
	n      *Notifier
	r      receiver
	nt     Notification
	body   []byte
	record func(state.Event)
}

func (d delivery) run() {
	n := d.n
	start := n.o.Now()
	var err error
	attempts := 0
	for attempts < 1+n.cfg.Retries {
		if attempts > 0 {
			t := time.NewTimer(n.o.Backoff(attempts))
			select {
			case <-t.C:
			case <-n.base.Done():
				t.Stop()
				d.failed(attempts, n.o.Now().Sub(start), fmt.Errorf("agentloop exited before a retry (%v)", err))
				return
			}
		}
		attempts++
		ctx, cancel := context.WithTimeout(n.base, n.cfg.Timeout)
		err = d.r.send(ctx, d.nt, d.body)
		timedOut := ctx.Err() == context.DeadlineExceeded
		cancel()
		if err == nil {
			n.o.Log.Debug("notification sent", "type", d.nt.Type, "target", d.r.name(), "attempts", attempts)
			d.record(state.Event{Time: n.o.Now(), Data: state.NotificationSent{
				Notification: string(d.nt.Type), ID: d.nt.ID, Target: d.r.name(), Attempts: attempts,
				Duration: state.MillisOf(n.o.Now().Sub(start))}})
			return
		}
		if timedOut {
			err = fmt.Errorf("no answer within %s", n.cfg.Timeout)
		}
		if n.base.Err() != nil {
			err = fmt.Errorf("agentloop exited before it was delivered (%v)", err)
			break
		}
		if _, permanent := errors.AsType[*permanentError](err); permanent {
			break
		}
	}
	d.failed(attempts, n.o.Now().Sub(start), err)
}

func (d delivery) failed(attempts int, took time.Duration, err error) {
	msg := d.n.red.String(clean(err))
	d.n.o.Log.Warn("notification not delivered", "type", d.nt.Type, "target", d.r.name(), "attempts", attempts, "error", msg)
	d.record(state.Event{Time: d.n.o.Now(), Data: state.NotificationFailed{
		Notification: string(d.nt.Type), ID: d.nt.ID, Target: d.r.name(), Attempts: attempts,
		Duration: state.MillisOf(took), Error: msg}})
}

// permanentError is a receiver's answer that another attempt cannot change
// (a 404, a 401).
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// clean is an error's message without the URL net/http puts in it: a
// receiver's URL can hold a secret (a Slack path, an ntfy topic).
func clean(err error) string {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return strings.TrimSpace(ue.Op + ": " + ue.Err.Error())
	}
	return err.Error()
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
