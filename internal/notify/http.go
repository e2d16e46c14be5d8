package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/textcut"
)

// The headers of a generic webhook's request.
const (
	HeaderEvent     = "X-Agentloop-Event"         // the notification's type
	HeaderDelivery  = "X-Agentloop-Delivery"      // its ID
	HeaderSignature = "X-Agentloop-Signature-256" // "sha256=" and the hex HMAC-SHA256 of the body
)

// Sign is the value of [HeaderSignature] for body signed with secret, as a
// receiver computes it to check a request: "sha256=" and the hex-encoded
// HMAC-SHA256 of the body, as GitHub's X-Hub-Signature-256.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// receiver is one place notifications go.
type receiver interface {
	name() string // without secrets, for events and logs
	send(ctx context.Context, n Notification, body []byte) error
}

// receivers builds the receivers of c.
func receivers(c target.Config, o Options) ([]receiver, error) {
	var rs []receiver
	var errs []string
	resolve := func(key string, e target.Endpoint) (string, bool) {
		u := e.URL
		if e.URLEnv != "" {
			u = o.Getenv(e.URLEnv)
			if u == "" {
				errs = append(errs, fmt.Sprintf("notify.%s: the variable %s (url_env) is not set", key, e.URLEnv))
				return "", false
			}
		}
		if err := target.CheckURL(u); err != nil {
			errs = append(errs, fmt.Sprintf("notify.%s: %v", key, err))
			return "", false
		}
		return u, true
	}
	for _, e := range c.Webhooks {
		u, ok := resolve("webhook", e)
		if !ok {
			continue
		}
		env := e.SecretEnv
		if env == "" {
			env = target.DefaultSecretEnv
		}
		secret := o.Getenv(env)
		if secret == "" && e.SecretEnv != "" {
			errs = append(errs, fmt.Sprintf("notify.webhook: the variable %s (secret_env) is not set; the webhook's body would go unsigned", e.SecretEnv))
			continue
		}
		rs = append(rs, &webhook{url: u, secret: []byte(secret), client: o.HTTP})
	}
	for _, e := range c.Slack {
		if u, ok := resolve("slack", e); ok {
			rs = append(rs, &slack{url: u, client: o.HTTP})
		}
	}
	for _, e := range c.Ntfy {
		u, ok := resolve("ntfy", e)
		if !ok {
			continue
		}
		token := ""
		if e.TokenEnv != "" {
			if token = o.Getenv(e.TokenEnv); token == "" {
				errs = append(errs, fmt.Sprintf("notify.ntfy: the variable %s (token_env) is not set", e.TokenEnv))
				continue
			}
		}
		n, err := newNtfy(u, token, o.HTTP)
		if err != nil {
			errs = append(errs, "notify.ntfy: "+err.Error())
			continue
		}
		rs = append(rs, n)
	}
	for _, argv := range c.Commands {
		rs = append(rs, &command{argv: argv})
	}
	if c.Desktop {
		if d := findDesktop(o); d != nil {
			rs = append(rs, d)
		} else {
			o.Log.Debug("no desktop to notify (notify-send or osascript, and a display)")
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return rs, nil
}

// post sends body to u and judges the answer: 2xx is delivered; 408, 429 and
// 5xx may go better later; any other status will not.
func post(ctx context.Context, client *http.Client, u string, body []byte, header http.Header) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return &permanentError{err}
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "agentloop-notify/1")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return nil
	case c == http.StatusRequestTimeout || c == http.StatusTooManyRequests || c >= 500:
		return fmt.Errorf("HTTP %s", resp.Status)
	default:
		return &permanentError{fmt.Errorf("HTTP %s", resp.Status)}
	}
}

// webhook is a generic webhook: the notification's JSON, signed.
type webhook struct {
	url    string
	secret []byte
	client *http.Client
}

func (w *webhook) name() string { return "webhook " + host(w.url) }

func (w *webhook) send(ctx context.Context, n Notification, body []byte) error {
	h := http.Header{}
	h.Set(HeaderEvent, string(n.Type))
	h.Set(HeaderDelivery, n.ID)
	if len(w.secret) > 0 {
		h.Set(HeaderSignature, Sign(w.secret, body))
	}
	return post(ctx, w.client, w.url, body, h)
}

// slack is a Slack-compatible incoming webhook: {"text": …} in Slack's mrkdwn.
type slack struct {
	url    string
	client *http.Client
}

func (s *slack) name() string { return "slack " + host(s.url) }

func (s *slack) send(ctx context.Context, n Notification, _ []byte) error {
	body, err := json.Marshal(map[string]string{"text": "*" + mrkdwn(n.Title) + "*\n" + mrkdwn(n.Text)})
	if err != nil {
		return &permanentError{err}
	}
	return post(ctx, s.client, s.url, body, http.Header{})
}

// mrkdwn escapes what Slack's mrkdwn reads as markup.
func mrkdwn(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// ntfy publishes to an ntfy topic through the server's JSON API: a POST of
// {"topic", "title", "message", "priority", "tags"} to the server's root,
// with the access token as "Authorization: Bearer" (ntfy's publish API, as
// its server reads it: server.go's transformBodyJSON).
type ntfy struct {
	server, topic, token string
	client               *http.Client
}

// ntfyTopic is what an ntfy server takes as a topic's name (its topicRegex).
var ntfyTopic = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[-_A-Za-z0-9]{1,64}$`) })

// ntfyMessageLimit is the default most bytes an ntfy server takes as a
// message (message-size-limit); a longer one it refuses, or makes an
// attachment of.
const ntfyMessageLimit = 4096

func newNtfy(u, token string, client *http.Client) (*ntfy, error) {
	p, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	topic := strings.Trim(p.Path, "/")
	if topic == "" || strings.Contains(topic, "/") {
		return nil, fmt.Errorf("%s names no topic: give the topic's URL, as https://ntfy.sh/TOPIC", target.RedactURL(u))
	}
	if !ntfyTopic().MatchString(topic) {
		return nil, fmt.Errorf("the topic of %s is not an ntfy topic: 1 to 64 letters, digits, - and _", target.RedactURL(u))
	}
	p.Path, p.RawQuery = "/", ""
	return &ntfy{server: p.String(), topic: topic, token: token, client: client}, nil
}

func (t *ntfy) name() string { return "ntfy " + host(t.server) }

func (t *ntfy) send(ctx context.Context, n Notification, _ []byte) error {
	priority := 3
	switch {
	case n.Type == target.KindNeedsYou || n.Status == "failed":
		priority = 4
	}
	body, err := json.Marshal(map[string]any{
		"topic": t.topic, "title": "agentloop: " + n.Title, "message": textcut.Bytes(n.Text, ntfyMessageLimit),
		"priority": priority, "tags": []string{"agentloop", string(n.Type)},
	})
	if err != nil {
		return &permanentError{err}
	}
	h := http.Header{}
	if t.token != "" {
		h.Set("Authorization", "Bearer "+t.token)
	}
	return post(ctx, t.client, t.server, body, h)
}

// host is the host of u, for a receiver's name: its path may be a secret.
func host(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "?"
	}
	return p.Host
}
