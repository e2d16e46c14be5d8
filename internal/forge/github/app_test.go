package github

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/forge/ghdouble"
)

// testKey is one RSA key for the package's tests (made once: 2048 bits
// take a while under the race detector).
var testKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// TestAppJWT: the JWT is RS256 over the claims GitHub asks, iat a minute
// back and exp nine minutes ahead, and crypto/rsa verifies its signature
// with the public key.
func TestAppJWT(t *testing.T) {
	t.Parallel()
	key := testKey()
	for _, tc := range []struct {
		iss        string
		now        time.Time
		wantClaims string
	}{
		{"12345", time.Unix(1_700_000_000, 0), `{"iat":1699999940,"exp":1700000540,"iss":"12345"}`},
		{"Iv23liABCDEF", time.Unix(1_800_000_000, 999_000_000), `{"iat":1799999940,"exp":1800000540,"iss":"Iv23liABCDEF"}`},
	} {
		jwt, err := appJWT(tc.iss, key, tc.now)
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(jwt, ".")
		if len(parts) != 3 {
			t.Fatalf("appJWT = %q: want three parts", jwt)
		}
		dec := func(s string) string {
			b, err := base64.RawURLEncoding.DecodeString(s)
			if err != nil {
				t.Fatalf("%q is not base64url without padding: %v", s, err)
			}
			return string(b)
		}
		if h := dec(parts[0]); h != `{"alg":"RS256","typ":"JWT"}` {
			t.Errorf("header = %s", h)
		}
		if c := dec(parts[1]); c != tc.wantClaims {
			t.Errorf("claims = %s, want %s", c, tc.wantClaims)
		}
		sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
		if err := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, sum[:], sig); err != nil {
			t.Errorf("the signature does not verify with the public key: %v", err)
		}
		other := sha256.Sum256([]byte(parts[0] + "." + parts[1] + "x"))
		if rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, other[:], sig) == nil {
			t.Error("the signature verifies over other bytes")
		}
	}
}

func pemOf(typ string, der []byte, headers map[string]string) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der, Headers: headers})
}

// TestParseAppKey: GitHub's PKCS#1 and PKCS#8 keys parse; anything else is
// ErrAppKey with what it is and what to do, and no error holds the text.
func TestParseAppKey(t *testing.T) {
	t.Parallel()
	key := testKey()
	p8, _ := x509.MarshalPKCS8PrivateKey(key)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ec8, _ := x509.MarshalPKCS8PrivateKey(ec)
	p1 := x509.MarshalPKCS1PrivateKey(key)
	for _, tc := range []struct {
		name string
		text []byte
		want string // "" parses
	}{
		{"pkcs1", pemOf("RSA PRIVATE KEY", p1, nil), ""},
		{"pkcs8", pemOf("PRIVATE KEY", p8, nil), ""},
		{"pkcs1 after text", append([]byte("a comment\n"), pemOf("RSA PRIVATE KEY", p1, nil)...), ""},
		{"not pem", []byte("12345\n"), "not a PEM file"},
		{"empty", nil, "not a PEM file"},
		{"certificate", pemOf("CERTIFICATE", []byte("x"), nil), `a PEM "CERTIFICATE" block, not a private key`},
		{"ec", pemOf("PRIVATE KEY", ec8, nil), "a ECDSA key, not RSA"},
		{"encrypted pkcs8", pemOf("ENCRYPTED PRIVATE KEY", []byte("x"), nil), "encrypted"},
		{"encrypted pkcs1", pemOf("RSA PRIVATE KEY", p1[:40], map[string]string{"Proc-Type": "4,ENCRYPTED"}), "encrypted"},
		{"truncated", pemOf("RSA PRIVATE KEY", p1[:len(p1)/2], nil), "does not parse"},
		{"pkcs8 as pkcs1", pemOf("RSA PRIVATE KEY", p8, nil), "does not parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := ParseAppKey(tc.text)
			if tc.want == "" {
				if err != nil || k == nil || !k.Equal(key) {
					t.Fatalf("ParseAppKey = %v, %v; want the key", k != nil, err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrAppKey) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseAppKey = %v; want ErrAppKey saying %q", err, tc.want)
			}
			assertNoKeyText(t, err.Error(), tc.text)
		})
	}
}

// assertNoKeyText fails when msg holds a line of text's PEM body: 24 or
// more base64 characters (no message of the package has such a run).
func assertNoKeyText(t *testing.T, msg string, text []byte) {
	t.Helper()
	for _, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if len(line) >= 24 && strings.Trim(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") == "" && strings.Contains(msg, line) {
			t.Fatalf("the error holds the key's text: %s", msg)
		}
	}
}

// TestReadAppKey: a missing or unreadable file is named, with what to do.
func TestReadAppKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "app.pem")
	if err := os.WriteFile(good, pemOf("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(testKey()), nil), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := ReadAppKey(good); err != nil || !k.Equal(testKey()) {
		t.Fatalf("ReadAppKey(good) = %v", err)
	}
	if _, err := ReadAppKey(filepath.Join(dir, "none.pem")); !errors.Is(err, ErrAppKey) || !strings.Contains(err.Error(), "none.pem: no such file") {
		t.Errorf("ReadAppKey(missing) = %v", err)
	}
	if os.Geteuid() != 0 { // root reads it anyway
		locked := filepath.Join(dir, "locked.pem")
		if err := os.WriteFile(locked, []byte("x"), 0o000); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadAppKey(locked); !errors.Is(err, ErrAppKey) || !strings.Contains(err.Error(), "not readable") {
			t.Errorf("ReadAppKey(unreadable) = %v", err)
		}
	}
}

// FuzzParseAppKey: no input panics, and no error holds the input's text.
func FuzzParseAppKey(f *testing.F) {
	p1 := x509.MarshalPKCS1PrivateKey(testKey())
	f.Add(pemOf("RSA PRIVATE KEY", p1, nil))
	f.Add(pemOf("RSA PRIVATE KEY", p1[:300], nil))
	f.Add(pemOf("PRIVATE KEY", p1, nil))
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		k, err := ParseAppKey(text)
		if (k == nil) == (err == nil) {
			t.Fatalf("ParseAppKey = %v, %v", k != nil, err)
		}
		if err != nil {
			assertNoKeyText(t, err.Error(), text)
		}
	})
}

// appDouble is a double with an App (id 42) installed on acme/tool
// (installation 7), whose tokens live life, on a clock the test moves.
type appDouble struct {
	s    *ghdouble.Server
	mu   sync.Mutex
	now  time.Time
	repo forge.Repo
	skew time.Duration // the client's clock ahead of the double's
}

func newAppDouble(t *testing.T, life time.Duration) *appDouble {
	d := &appDouble{now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	d.s = ghdouble.Start(t, ghdouble.Options{TLS: true, Now: d.serverNow})
	d.s.AddRepo("acme/tool", ghdouble.Repo{Private: true})
	d.s.SetPermission("acme/tool", "maint", "maintain")
	d.s.AddIssue("acme/tool", ghdouble.Issue{Title: "fix it", Author: "maint"})
	d.s.AddRepo("acme/other", ghdouble.Repo{})
	d.s.AddApp(ghdouble.App{ID: 42, ClientID: "Iv23liTEST", Slug: "agentloop-test", Key: &testKey().PublicKey, TokenLife: life})
	d.s.Install(ghdouble.Installation{ID: 7, App: 42, Repos: []string{"acme/tool"}})
	d.repo = forge.Repo{Host: d.s.Host(), Owner: "acme", Name: "tool"}
	return d
}

func (d *appDouble) serverNow() time.Time { d.mu.Lock(); defer d.mu.Unlock(); return d.now }
func (d *appDouble) clientNow() time.Time { d.mu.Lock(); defer d.mu.Unlock(); return d.now.Add(d.skew) }
func (d *appDouble) advance(by time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.now = d.now.Add(by)
}

func (d *appDouble) client(t *testing.T, app App, log *syncBuffer) *Client {
	t.Helper()
	if app.Key == nil {
		app.Key = testKey()
	}
	if app.Repo == (forge.Repo{}) {
		app.Repo = d.repo
	}
	o := Options{Host: d.s.Host(), App: &app, Transport: d.s.Client().Transport, Now: d.clientNow,
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}
	if log != nil {
		o.Log = newTextLog(log)
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (d *appDouble) count(status int, endpoint string) int {
	n := 0
	for _, r := range d.s.Requests() {
		if r.Status == status && (endpoint == "" || r.Endpoint == endpoint) {
			n++
		}
	}
	return n
}

const (
	mintPath     = "/app/installations/{installation_id}/access_tokens"
	issuePath    = "/repos/{owner}/{repo}/issues/{issue_number}"
	findEndpoint = "GET /repos/{owner}/{repo}/installation"
	issueGet     = "GET " + issuePath
)

// TestAppToken: a client acting as a GitHub App finds its installation on
// the repository, mints a token with a JWT the double verifies, uses it for
// every request (as the App's bot), mints the next one five minutes before
// it expires, once when GitHub refuses it mid-run, and once for many
// concurrent requests; it gives up after a second refusal.
func TestAppToken(t *testing.T) {
	t.Parallel()
	d := newAppDouble(t, time.Hour)
	var logs syncBuffer
	c := d.client(t, App{ID: "42"}, &logs)
	ctx := t.Context()
	ref := forge.IssueRef{Repo: d.repo, Number: 1}
	if _, err := c.Issue(ctx, ref); err != nil {
		t.Fatalf("Issue() = %v", err)
	}
	if d.s.Minted() != 1 || d.count(200, findEndpoint) != 1 || d.count(200, issueGet) != 1 {
		t.Fatalf("minted %d, requests %v; want the installation found and one token", d.s.Minted(), d.s.Requests())
	}
	for _, r := range d.s.Requests() {
		if r.Endpoint == issueGet && r.Login != ghdouble.Bot("agentloop-test") {
			t.Errorf("the issue was read as %q, not as the App's bot", r.Login)
		}
	}
	// What the App writes is agentloop's own: its bot is trusted, though no
	// collaborator (GitHub's author_association NONE).
	if _, err := c.Comment(ctx, ref, "<!-- agentloop: progress -->"); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Comments(ctx, ref)
	if err != nil || len(cs) != 1 || cs[0].Author != ghdouble.Bot("agentloop-test") || !cs[0].Trusted {
		t.Fatalf("Comments() = %+v, %v; want the App's own comment, trusted", cs, err)
	}

	// 54 minutes on: the token is kept; 56: it expires within five, a new one.
	d.advance(54 * time.Minute)
	if _, err := c.Issue(ctx, ref); err != nil || d.s.Minted() != 1 {
		t.Fatalf("Issue() at 54 min = %v, minted %d; want the same token", err, d.s.Minted())
	}
	d.advance(2 * time.Minute)
	if _, err := c.Issue(ctx, ref); err != nil || d.s.Minted() != 2 {
		t.Fatalf("Issue() at 56 min = %v, minted %d; want a new token", err, d.s.Minted())
	}
	if n := d.count(401, ""); n != 0 {
		t.Errorf("%d answers 401: a token was sent expired", n)
	}
	if d.count(200, findEndpoint) != 1 {
		t.Errorf("the installation was looked up again")
	}

	// Revoked mid-run: one 401, a new token, the request answered.
	d.s.RevokeTokens()
	if _, err := c.Issue(ctx, ref); err != nil || d.s.Minted() != 3 || d.count(401, issueGet) != 1 {
		t.Fatalf("Issue() after a revocation = %v, minted %d, 401s %d; want one 401 and one new token", err, d.s.Minted(), d.count(401, issueGet))
	}

	// Expired, and eight requests at once: one mint between them.
	d.advance(58 * time.Minute)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			_, err := c.Issue(ctx, ref)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent Issue() = %v", err)
		}
	}
	if d.s.Minted() != 4 {
		t.Errorf("minted %d after eight concurrent requests on an expiring token; want one more (4)", d.s.Minted())
	}

	// Refused twice: one new token, then the failure, named for the App.
	d.s.Inject(ghdouble.Fault{Method: "GET", Path: issuePath, Status: 401, Message: "Bad credentials", Times: 2})
	_, err = c.Issue(ctx, ref)
	if !errors.Is(err, forge.ErrAuth) || !errors.Is(err, ErrApp) || !strings.Contains(err.Error(), "installation token of the GitHub App 42") || d.s.Minted() != 5 {
		t.Fatalf("Issue() refused twice = %v, minted %d; want ErrAuth naming the App after one new token", err, d.s.Minted())
	}
	if strings.Contains(logs.String(), "ghs_") || strings.Contains(err.Error(), "ghs_") || strings.Contains(logs.String(), "eyJ") {
		t.Errorf("a token or JWT was logged or put in an error:\n%s\n%v", logs.String(), err)
	}
}

// TestAppTokenShortLived: tokens that live seconds (less than the margin)
// are minted again for each request, never sent expired.
func TestAppTokenShortLived(t *testing.T) {
	t.Parallel()
	d := newAppDouble(t, 30*time.Second)
	c := d.client(t, App{ID: "Iv23liTEST", Installation: 7}, nil)
	for i := range 3 {
		if _, err := c.Issue(t.Context(), forge.IssueRef{Repo: d.repo, Number: 1}); err != nil {
			t.Fatalf("Issue() #%d = %v", i, err)
		}
		d.advance(40 * time.Second)
	}
	if d.s.Minted() != 3 || d.count(401, "") != 0 || d.count(200, findEndpoint) != 1 {
		t.Errorf("minted %d, 401s %d, lookups %d; want a token a request, none refused, the App's bot looked up once", d.s.Minted(), d.count(401, ""), d.count(200, findEndpoint))
	}
}

// TestAppFailures: each way the App's credentials fail is named with what
// to fix, and no secret is in the message.
func TestAppFailures(t *testing.T) {
	t.Parallel()
	other, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		app   App
		skew  time.Duration
		fault *ghdouble.Fault
		want  []string
		kind  error
	}{
		{name: "unknown app id", app: App{ID: "43"}, want: []string{"HTTP 404: Integration not found", "no GitHub App has the id 43"}, kind: ErrApp},
		{name: "key of another app", app: App{ID: "42", Key: other}, want: []string{"HTTP 401: A JSON web token could not be decoded", "the private key is one of this App's"}, kind: ErrApp},
		{name: "no such installation", app: App{ID: "42", Installation: 999}, want: []string{"HTTP 404", "has no installation 999"}, kind: ErrApp},
		{name: "not installed on the repository", app: App{ID: "42", Repo: forge.Repo{Owner: "acme", Name: "other"}}, want: []string{"/repos/acme/other/installation", "is not installed on acme/other"}, kind: ErrApp},
		{name: "clock ahead", app: App{ID: "42"}, skew: 3 * time.Minute, want: []string{"'Expiration time' claim ('exp') is too far in the future", "clock is off"}, kind: ErrApp},
		{name: "clock behind", app: App{ID: "42"}, skew: -10 * time.Minute, want: []string{"'Expiration time' claim ('exp') must be a numeric value", "clock is off"}, kind: ErrApp},
		{name: "installation suspended", app: App{ID: "42", Installation: 7}, fault: &ghdouble.Fault{Path: mintPath, Status: 403, Message: "This installation has been suspended"},
			want: []string{"HTTP 403: This installation has been suspended", "not suspended"}, kind: ErrApp},
		{name: "permission missing", app: App{ID: "42", Installation: 7},
			fault: &ghdouble.Fault{Path: issuePath, Status: 403, Message: "Resource not accessible by integration", Header: http.Header{"X-Accepted-Github-Permissions": {"issues=read"}}},
			want:  []string{"Resource not accessible by integration", "needs the permission issues=read"}, kind: forge.ErrScope},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := newAppDouble(t, time.Hour)
			d.skew = tc.skew
			if tc.fault != nil {
				d.s.Inject(*tc.fault)
			}
			var logs syncBuffer
			c := d.client(t, tc.app, &logs)
			_, err := c.Issue(t.Context(), forge.IssueRef{Repo: d.repo, Number: 1})
			if err == nil || !errors.Is(err, tc.kind) {
				t.Fatalf("Issue() = %v; want %v", err, tc.kind)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Issue() = %v\nwant it to say %q", err, w)
				}
			}
			for _, secret := range []string{"ghs_", "eyJ", "BEGIN"} {
				if strings.Contains(err.Error(), secret) || strings.Contains(logs.String(), secret) {
					t.Errorf("%q in the error or the log: %v\n%s", secret, err, logs.String())
				}
			}
		})
	}
}

// TestAppOptions: an App without an id, a key, or a way to its
// installation is refused before any request.
func TestAppOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		app  App
		want string
	}{
		{App{Key: testKey(), Installation: 1}, "no App id"},
		{App{ID: "1", Installation: 1}, "no private key"},
		{App{ID: "1", Key: testKey()}, "no installation id and no repository"},
	} {
		if _, err := New(Options{Host: "github.com", App: &tc.app}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v; want %q", tc.app.ID, err, tc.want)
		}
	}
	c, err := New(Options{Host: "github.com", App: &App{ID: "42", Key: testKey(), Installation: 7}})
	if err != nil || c.Credential() != "the GitHub App 42's installation 7" {
		t.Errorf("Credential() = %q, %v", c.Credential(), err)
	}
	var buf bytes.Buffer
	buf.WriteString(c.Credential())
	if strings.Contains(buf.String(), "BEGIN") {
		t.Error("the credential's description holds the key")
	}
}
