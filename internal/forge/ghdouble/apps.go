package ghdouble

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// App is a GitHub App the double knows: a JWT whose issuer is its ID (or
// ClientID) and whose signature Key verifies authenticates as it.
type App struct {
	ID       int64
	ClientID string
	Slug     string
	Key      *rsa.PublicKey
	// TokenLife is how long an installation token it mints lives: an hour
	// when 0, as GitHub's do. A test gives seconds to see tokens replaced.
	TokenLife time.Duration
}

// Installation is an App installed on an account, reaching Repos
// (owner/name) with write access as its bot, SLUG[bot].
type Installation struct {
	ID    int64
	App   int64
	Repos []string
	// Contents is the installation's Contents permission: write when
	// empty; read refuses its tokens' pushes over git (403), as GitHub does
	// an App not granted Contents: Read and write.
	Contents string
}

// installation is an installation as the double keeps it.
type installation struct {
	Installation
	created time.Time
}

// Bot is the login an App's installation tokens act as.
func Bot(slug string) string { return slug + "[bot]" }

// AddApp makes the double know a.
func (s *Server) AddApp(a App) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apps[a.ID] = &a
	s.userID(Bot(a.Slug))
}

// Install installs an App on its repositories: its bot may write to each.
func (s *Server) Install(in Installation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.apps[in.App]
	if a == nil {
		panic(fmt.Sprintf("ghdouble: no App %d: AddApp it first", in.App))
	}
	for _, full := range in.Repos {
		s.repoLocked(full).perms[Bot(a.Slug)] = "write"
	}
	s.installs[in.ID] = &installation{Installation: in, created: s.now()}
}

// RevokeTokens revokes every installation token minted so far, as an
// installation suspended and restored, or GitHub rotating them, would.
func (s *Server) RevokeTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for tok := range s.expiry {
		delete(s.tokens, tok)
		delete(s.expiry, tok)
	}
}

// Minted is how many installation tokens the double has minted.
func (s *Server) Minted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.minted
}

// The messages GitHub answers a JWT it refuses with (401).
const (
	jwtUndecodable = "A JSON web token could not be decoded"
	jwtExpTooFar   = "'Expiration time' claim ('exp') is too far in the future"
	jwtExpired     = "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"
	jwtIatFuture   = "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"
)

// appEndpoint says the endpoint authenticates as an App (a JWT), not with
// a token.
func appEndpoint(endpoint string) bool {
	return endpoint == "POST /app/installations/{installation_id}/access_tokens" ||
		endpoint == "GET /repos/{owner}/{repo}/installation"
}

// appLocked authenticates c's JWT and answers it. s.mu is held.
func (s *Server) appLocked(c *call, h http.Header) answer {
	auth := c.r.Header.Get("Authorization")
	scheme, jwt, _ := strings.Cut(auth, " ")
	if !strings.EqualFold(scheme, "bearer") || jwt == "" {
		// A token where a JWT is asked: GitHub's answer to an installation
		// or user token on these.
		return answer{status: 401, header: h, body: errorBody(jwtUndecodable, "https://docs.github.com/rest", 401)}
	}
	a, status, msg := s.verifyJWTLocked(jwt)
	if a == nil {
		return answer{status: status, header: h, body: errorBody(msg, "https://docs.github.com/rest", status)}
	}
	b := s.bucketLocked("app:"+strconv.FormatInt(a.ID, 10)+"/core", s.opts.Limit)
	b.used++
	b.headers(h, "core")
	var ans answer
	if c.endpoint == "GET /repos/{owner}/{repo}/installation" {
		ans = s.repoInstallation(c, a)
	} else {
		ans = s.mintToken(c, a)
	}
	ans.header = h
	return ans
}

// verifyJWTLocked checks a JWT as GitHub does: RS256, signed by the key of
// the App its iss names, issued in the past, expiring within ten minutes.
func (s *Server) verifyJWTLocked(jwt string) (a *App, status int, msg string) {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return nil, 401, jwtUndecodable
	}
	enc := base64.RawURLEncoding
	var header struct {
		Alg string `json:"alg"`
	}
	var claims struct {
		Iat, Exp json.Number
		Iss      any
	}
	hb, err1 := enc.DecodeString(parts[0])
	cb, err2 := enc.DecodeString(parts[1])
	sig, err3 := enc.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || json.Unmarshal(hb, &header) != nil || header.Alg != "RS256" {
		return nil, 401, jwtUndecodable
	}
	dec := json.NewDecoder(strings.NewReader(string(cb)))
	dec.UseNumber()
	if dec.Decode(&claims) != nil {
		return nil, 401, jwtUndecodable
	}
	iss := fmt.Sprint(claims.Iss)
	for _, app := range s.apps {
		if iss == strconv.FormatInt(app.ID, 10) || (app.ClientID != "" && iss == app.ClientID) {
			a = app
		}
	}
	if a == nil {
		return nil, 404, "Integration not found"
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(a.Key, crypto.SHA256, sum[:], sig) != nil {
		return nil, 401, jwtUndecodable
	}
	iat, err1 := claims.Iat.Int64()
	exp, err2 := claims.Exp.Int64()
	now := s.now().Unix()
	switch {
	case err2 != nil || exp <= now:
		return nil, 401, jwtExpired
	case exp > now+600:
		return nil, 401, jwtExpTooFar
	case err1 != nil || iat > now:
		return nil, 401, jwtIatFuture
	}
	return a, 0, ""
}

// mintToken answers POST /app/installations/{installation_id}/access_tokens.
func (s *Server) mintToken(c *call, a *App) answer {
	id, _ := strconv.ParseInt(c.params["installation_id"], 10, 64)
	in := s.installs[id]
	if in == nil || in.App != a.ID {
		return notFound()
	}
	var raw [20]byte
	_, _ = rand.Read(raw[:])
	tok := "ghs_" + hex.EncodeToString(raw[:])
	life := a.TokenLife
	if life == 0 {
		life = time.Hour
	}
	expires := s.now().Add(life)
	s.tokens[tok] = Token{Login: Bot(a.Slug), ReadOnly: in.Contents == "read"}
	s.expiry[tok] = expires
	s.minted++
	return answer{status: 201, body: obj{
		"token": tok, "expires_at": ts(expires), "permissions": appPermissions(in.Contents), "repository_selection": "selected",
	}}
}

// repoInstallation answers GET /repos/{owner}/{repo}/installation.
func (s *Server) repoInstallation(c *call, a *App) answer {
	want := repoKey(c.params["owner"], c.params["repo"])
	for _, in := range s.installs {
		if in.App != a.ID {
			continue
		}
		for _, full := range in.Repos {
			o, n := splitRepo(full)
			if repoKey(o, n) != want {
				continue
			}
			r := s.repos[want]
			idText := strconv.FormatInt(in.ID, 10)
			return answer{status: 200, body: obj{
				"id": in.ID, "account": s.userJSON(c, r.owner), "repository_selection": "selected",
				"access_tokens_url": c.api() + "/app/installations/" + idText + "/access_tokens",
				"repositories_url":  c.api() + "/installation/repositories",
				"html_url":          c.web() + "/settings/installations/" + idText,
				"app_id":            a.ID, "app_slug": a.Slug, "client_id": a.ClientID,
				"target_id": s.userID(r.owner), "target_type": "User",
				"permissions": appPermissions(in.Contents), "events": []any{},
				"created_at": ts(in.created), "updated_at": ts(in.created),
				"single_file_name": nil, "suspended_by": nil, "suspended_at": nil,
			}}
		}
	}
	return notFound()
}

// appPermissions are the permissions the double's Apps are granted: what
// agentloop asks of an App.
func appPermissions(contents string) obj {
	if contents == "" {
		contents = "write"
	}
	return obj{"issues": "write", "pull_requests": "write", "contents": contents, "checks": "read", "actions": "read", "metadata": "read"}
}
