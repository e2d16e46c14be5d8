package ghdouble

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"
)

// signJWT is a JWT as a client signs it, from its header and claims.
func signJWT(t *testing.T, key *rsa.PrivateKey, header, claims string) string {
	t.Helper()
	enc := base64.RawURLEncoding
	signed := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(claims))
	sum := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signed + "." + enc.EncodeToString(sig)
}

// TestAppJWTs: the double takes an App's JWT as GitHub does (RS256, signed
// by the App's key, iss its id or client id, exp within ten minutes, iat
// past) and refuses any other with GitHub's message; what it answers, the
// installation and its token, fits GitHub's description (Start's check).
func TestAppJWTs(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	s := Start(t, Options{Now: func() time.Time { return now }})
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	other, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	s.AddRepo("acme/tool", Repo{Private: true})
	s.AddIssue("acme/tool", Issue{Title: "t", Author: "acme"})
	s.AddApp(App{ID: 42, ClientID: "Iv23liX", Slug: "loop", Key: &key.PublicKey})
	s.Install(Installation{ID: 7, App: 42, Repos: []string{"acme/tool"}})
	const rs = `{"alg":"RS256","typ":"JWT"}`
	claims := func(iss string, iat, exp time.Duration) string {
		return fmt.Sprintf(`{"iat":%d,"exp":%d,"iss":%q}`, now.Add(iat).Unix(), now.Add(exp).Unix(), iss)
	}
	good := claims("42", -time.Minute, 9*time.Minute)
	for _, tc := range []struct {
		name, auth, path string
		status           int
		want             string
	}{
		{"installation", "Bearer " + signJWT(t, key, rs, good), "GET /repos/acme/tool/installation", 200, `"app_slug":"loop"`},
		{"by client id", "Bearer " + signJWT(t, key, rs, claims("Iv23liX", -time.Minute, 9*time.Minute)), "GET /repos/acme/tool/installation", 200, `"id":7`},
		{"not installed", "Bearer " + signJWT(t, key, rs, good), "GET /repos/acme/none/installation", 404, "Not Found"},
		{"token", "Bearer " + signJWT(t, key, rs, good), "POST /app/installations/7/access_tokens", 201, `"token":"ghs_`},
		{"no installation", "Bearer " + signJWT(t, key, rs, good), "POST /app/installations/8/access_tokens", 404, "Not Found"},
		{"other key", "Bearer " + signJWT(t, other, rs, good), "POST /app/installations/7/access_tokens", 401, jwtUndecodable},
		{"other alg", "Bearer " + signJWT(t, key, `{"alg":"none"}`, good), "POST /app/installations/7/access_tokens", 401, jwtUndecodable},
		{"unknown app", "Bearer " + signJWT(t, key, rs, claims("43", -time.Minute, 9*time.Minute)), "POST /app/installations/7/access_tokens", 404, "Integration not found"},
		{"too long", "Bearer " + signJWT(t, key, rs, claims("42", 0, 11*time.Minute)), "POST /app/installations/7/access_tokens", 401, jwtExpTooFar},
		{"expired", "Bearer " + signJWT(t, key, rs, claims("42", -20*time.Minute, -10*time.Minute)), "POST /app/installations/7/access_tokens", 401, jwtExpired},
		{"issued ahead", "Bearer " + signJWT(t, key, rs, claims("42", time.Minute, 5*time.Minute)), "POST /app/installations/7/access_tokens", 401, jwtIatFuture},
		{"garbage", "Bearer a.b.c", "POST /app/installations/7/access_tokens", 401, jwtUndecodable},
		{"a token for a JWT", "token ghp_x", "POST /app/installations/7/access_tokens", 401, jwtUndecodable},
	} {
		c := newClient(t, s, "")
		method, path, _ := strings.Cut(tc.path, " ")
		r := c.do(method, path, "", "Authorization", tc.auth)
		if r.status != tc.status || !strings.Contains(string(r.body), tc.want) {
			t.Errorf("%s: %s = %d %s; want %d with %q", tc.name, tc.path, r.status, r.body, tc.status, tc.want)
		}
	}

	// The token minted reads the private repository as the App's bot, for
	// an hour.
	r := newClient(t, s, "").do("POST", "/app/installations/7/access_tokens", "", "Authorization", "Bearer "+signJWT(t, key, rs, good))
	tok := r.json(t).(map[string]any)["token"].(string)
	if r := newClient(t, s, tok).do("GET", "/repos/acme/tool/issues/1", ""); r.status != 200 {
		t.Fatalf("the installation token reads the issue: %d %s", r.status, r.body)
	}
	now = now.Add(time.Hour)
	if r := newClient(t, s, tok).do("GET", "/repos/acme/tool/issues/1", ""); r.status != 401 {
		t.Errorf("an hour later the token reads the issue: %d %s; want 401", r.status, r.body)
	}
}
