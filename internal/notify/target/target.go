package target

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Defaults of [Config]'s tuning, the built-in configuration's notify: values.
const (
	DefaultTimeout        = 5 * time.Second // one attempt
	DefaultRetries        = 2
	DefaultRateLimitAfter = 10 * time.Minute
	// DefaultSecretEnv is the variable whose value signs a webhook's body when
	// the webhook names none.
	DefaultSecretEnv = "AGENTLOOP_NOTIFY_SECRET"
	// ntfyServer is the server of an ntfy topic given by name alone.
	ntfyServer = "https://ntfy.sh/"
)

// Config is the notify: section: the receivers, the kinds told, and the
// tuning of delivery.
type Config struct {
	Webhooks []Endpoint // generic webhooks: the JSON body, signed
	Slack    []Endpoint // Slack-compatible incoming webhooks
	Ntfy     []Endpoint // ntfy topics (https://ntfy.sh/TOPIC or a server of your own)
	Commands [][]string // argv; the notification's JSON on standard input
	Desktop  bool       // notify-send or osascript, when there is a desktop
	// Events are the kinds told; empty: every kind.
	Events []Kind
	// RateLimitAfter is the shortest rate-limit wait told (rate_limited).
	RateLimitAfter time.Duration
	Timeout        time.Duration // one attempt of one receiver
	Retries        int           // attempts after the first, for a receiver that fails
}

// Endpoint is one URL receiver.
type Endpoint struct {
	URL string
	// URLEnv names the variable holding the URL instead (a Slack URL is a
	// secret; keep it out of the file).
	URLEnv string
	// SecretEnv names the variable holding a webhook's HMAC secret (default
	// AGENTLOOP_NOTIFY_SECRET: the body is signed when it is set).
	SecretEnv string
	// TokenEnv names the variable holding an ntfy access token.
	TokenEnv string
}

// Kind is what a notification is about.
type Kind string

// The kinds of notification.
const (
	KindNeedsYou      Kind = "needs_you"      // a run or task waits for a person
	KindFinished      Kind = "finished"       // a run ended: succeeded, completed, aborted or failed
	KindBudget        Kind = "budget_warning" // a run is past 80% of a budget
	KindRateLimited   Kind = "rate_limited"   // the agent's rate limit is waited out for a long time
	KindGraphFinished Kind = "graph_finished" // a task graph ended
)

// Kinds lists the kinds, as notify.events names them.
func Kinds() []string {
	return []string{string(KindNeedsYou), string(KindFinished), string(KindBudget), string(KindRateLimited), string(KindGraphFinished)}
}

// Empty reports whether no receiver is configured.
func (c Config) Empty() bool {
	return len(c.Webhooks)+len(c.Slack)+len(c.Ntfy)+len(c.Commands) == 0 && !c.Desktop
}

// Told reports whether notifications of kind k are sent.
func (c Config) Told(k Kind) bool { return len(c.Events) == 0 || slices.Contains(c.Events, k) }

// Syntax is how a receiver is written on the command line (--notify).
const Syntax = "URL (a generic webhook), webhook:URL, slack:URL, ntfy:TOPIC or ntfy:URL, command:CMD, desktop, or none"

// AddTarget adds the receiver s, written as [Syntax] says (the --notify
// flag); "none" removes every receiver configured so far.
func (c *Config) AddTarget(s string) error {
	kind, rest, _ := strings.Cut(s, ":")
	switch strings.ToLower(kind) {
	case "none":
		if rest == "" {
			c.Webhooks, c.Slack, c.Ntfy, c.Commands, c.Desktop = nil, nil, nil, nil, false
			return nil
		}
	case "desktop":
		if rest == "" {
			c.Desktop = true
			return nil
		}
	case "http", "https":
		return c.addURL(&c.Webhooks, s)
	case "webhook":
		return c.addURL(&c.Webhooks, rest)
	case "slack":
		return c.addURL(&c.Slack, rest)
	case "ntfy":
		return c.addURL(&c.Ntfy, NtfyURL(rest))
	case "command":
		if strings.TrimSpace(rest) == "" {
			return fmt.Errorf("%q: command: needs the command to run", s)
		}
		c.Commands = append(c.Commands, ShellCommand(rest))
		return nil
	}
	return fmt.Errorf("%q is not a receiver; give %s", s, Syntax)
}

func (c *Config) addURL(to *[]Endpoint, u string) error {
	if err := CheckURL(u); err != nil {
		return err
	}
	*to = append(*to, Endpoint{URL: u})
	return nil
}

// CheckURL reports what makes u unusable as a receiver's URL.
func CheckURL(u string) error {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return fmt.Errorf("%q is not an http:// or https:// URL", RedactURL(u))
	}
	return nil
}

// NtfyURL is the URL of an ntfy topic given as a URL, or by name alone (a
// topic of ntfy.sh).
func NtfyURL(s string) string {
	if s != "" && !strings.Contains(s, "/") {
		return ntfyServer + s
	}
	return s
}

// ShellCommand is the argv of a command line run by the shell.
func ShellCommand(line string) []string { return []string{"sh", "-c", line} }

// RedactURL is a URL as a message may show it: its scheme and host, the rest
// (a Slack path, an ntfy topic: secrets) left out.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return "…"
	}
	return p.Scheme + "://" + p.Host + "/…"
}
