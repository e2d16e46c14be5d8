// Package redacttest makes realistic credentials of every kind agentloop
// promises to redact, for tests: the redactor's own, and the end-to-end
// scripts that plant them in what an agent, a gate and a diff print.
package redacttest

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
)

// Credential is one credential a test plants, and the text it is printed in.
type Credential struct {
	Kind   string
	Secret string // what must never come out, nor a long piece of it
	Line   string // the text that carries it, with %s for Secret
}

// gen makes realistic credentials from a fixed seed: the shapes of the real
// ones, with random bodies (a test value such as "abcdefghij…" is allowed
// through by the catalog's stopwords, as it should be).
type gen struct{ r *rand.Rand }

func newGen(seed uint64) gen { return gen{rand.New(rand.NewPCG(seed, seed^0x5eed))} }

func (g gen) from(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.r.IntN(len(set))]
	}
	return string(b)
}

const (
	alnum    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	lowerAl  = "abcdefghijklmnopqrstuvwxyz0123456789"
	upperB32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	word     = alnum + "_"
	wordDash = word + "-"
	b64      = alnum + "+/"
	digits   = "0123456789"
)

// jwt is a signed JSON Web Token with the given claims.
func (g gen) jwt() string {
	enc := base64.RawURLEncoding
	head := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	body := enc.EncodeToString([]byte(`{"sub":"` + g.from(digits, 10) + `","name":"agent","iat":1716239022}`))
	sig := make([]byte, 32)
	for i := range sig {
		sig[i] = byte(g.r.IntN(256))
	}
	return head + "." + body + "." + enc.EncodeToString(sig)
}

// pemBody is the base64 body of a private key, in 64-column lines.
func (g gen) pemBody(lines int) []string {
	out := make([]string, lines)
	for i := range out {
		out[i] = g.from(b64, 64)
	}
	out[lines-1] = out[lines-1][:40] + "=="
	return out
}

// Credentials returns one credential of each kind agentloop promises to
// redact, as an agent, a gate or a diff prints it, made from seed.
func Credentials(seed uint64) []Credential {
	g := newGen(seed)
	pem := g.pemBody(8)
	jwt := g.jwt()
	awsSecret := g.from(b64, 40)
	urlPass := g.from(alnum, 18)
	return []Credential{
		{"github-pat", "ghp_" + g.from(alnum, 36), "export GITHUB_TOKEN=%s"},
		{"github-fine-grained-pat", "github_pat_" + g.from(word, 82), "gh auth login --with-token <<< %s"},
		{"gitlab-pat", "glpat-" + g.from(wordDash, 20), `{"private_token": "%s"}`},
		{"aws-access-key-id", "AKIA" + g.from(upperB32, 16), "aws_access_key_id = %s"},
		{"aws-secret-access-key", awsSecret, "aws_secret_access_key = %s"},
		{"anthropic-api-key", "sk-ant-api03-" + g.from(wordDash, 93) + "AA", "ANTHROPIC_API_KEY=%s claude -p hi"},
		{"anthropic-oauth-token", "sk-ant-oat01-" + g.from(wordDash, 95), "CLAUDE_CODE_OAUTH_TOKEN: %s"},
		{"openai-api-key", "sk-proj-" + g.from(wordDash, 74) + "T3BlbkFJ" + g.from(wordDash, 74), "Authorization: Bearer %s"},
		{"slack-bot-token", "xoxb-" + g.from(digits, 12) + "-" + g.from(digits, 13) + "-" + g.from(alnum, 24), "SLACK_BOT_TOKEN=%s"},
		{"stripe-secret-key", "sk_live_" + g.from(alnum, 24), `stripe.api_key = "%s"`},
		{"google-api-key", "AIza" + g.from(wordDash, 35), "GET https://maps.googleapis.com/maps/api/geocode/json?key=%s"},
		{"npm-token", "npm_" + g.from(lowerAl, 36), "//registry.npmjs.org/:_authToken=%s"},
		{"jwt", jwt, `{"access_token":"%s","expires_in":3600}`},
		{"url-password", urlPass, "git clone https://deploy:%s@git.example.com/team/repo.git"},
		{"private-key", strings.Join(pem, "\n"), "-----BEGIN RSA PRIVATE KEY-----\n%s\n-----END RSA PRIVATE KEY-----"},
		{"private-key-escaped", strings.Join(pem[:3], `\n`), `{"content":"-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n"}`},
		{"generic-api-key", g.from(alnum, 32), `config.api_key = "%s"`},
		{"env-value", "Vv9." + g.from(alnum, 20), "connecting with %s"},
	}
}

// EnvVar is the secret-named variable whose value is the env-value
// credential (see [EnvFor]).
const EnvVar = "DEPLOY_SERVICE_TOKEN"

// EnvFor is the environment whose secret-named variable holds the env-value
// credential.
func EnvFor(creds []Credential) []string {
	for _, c := range creds {
		if c.Kind == "env-value" {
			return []string{EnvVar + "=" + c.Secret}
		}
	}
	return nil
}

// Text is the credential's line.
func (c Credential) Text() string { return strings.Replace(c.Line, "%s", c.Secret, 1) }

// Leaks returns a piece of the secret (12 bytes of one of its lines) that is
// still in out, or "".
func (c Credential) Leaks(out string) string {
	for _, part := range strings.Split(c.Secret, "\n") {
		for i := 0; i+12 <= len(part); i += 6 {
			if piece := part[i : i+12]; strings.Contains(out, piece) {
				return piece
			}
		}
	}
	return ""
}
