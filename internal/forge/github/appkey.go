package github

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
)

// appJWT is the JWT that authenticates as the App at now: RS256 over
// {"iat","exp","iss"}, as GitHub's "Generating a JSON Web Token (JWT) for a
// GitHub App" asks.
func appJWT(iss string, key *rsa.PrivateKey, now time.Time) (string, error) {
	claims, err := json.Marshal(struct {
		Iat int64  `json:"iat"`
		Exp int64  `json:"exp"`
		Iss string `json:"iss"`
	}{now.Add(-jwtBackdate).Unix(), now.Add(jwtLife).Unix(), iss})
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	signed := enc.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + enc.EncodeToString(claims)
	sum := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, sum[:])
	if err != nil {
		return "", fmt.Errorf("sign the GitHub App's JWT: %w", err)
	}
	return signed + "." + enc.EncodeToString(sig), nil
}

// ErrAppKey is a GitHub App private key that cannot be used.
var ErrAppKey = errors.New("the GitHub App's private key cannot be used")

// keyHint says where a GitHub App's key comes from.
const keyHint = "generate one on the App's settings page (Private keys) and give the path of the .pem file GitHub downloads"

// ReadAppKey reads a GitHub App's private key from the PEM file at path
// (PKCS#1 "RSA PRIVATE KEY", as GitHub gives it, or PKCS#8 "PRIVATE KEY").
// Its errors name the file, never its content.
func ReadAppKey(path string) (*rsa.PrivateKey, error) {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("GitHub App key %s: no such file: %w; %s", path, ErrAppKey, keyHint)
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("GitHub App key %s: not readable by this user: %w; give it read permission (chmod 600, owned by the user agentloop runs as)", path, ErrAppKey)
	case err != nil:
		return nil, fmt.Errorf("GitHub App key %s: %w: %w", path, ErrAppKey, err)
	}
	k, err := ParseAppKey(b)
	if err != nil {
		return nil, fmt.Errorf("GitHub App key %s: %w", path, err)
	}
	return k, nil
}

// ParseAppKey parses a GitHub App's private key from its PEM text. Its
// errors never hold the text.
func ParseAppKey(b []byte) (*rsa.PrivateKey, error) {
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, fmt.Errorf("not a PEM file (no -----BEGIN RSA PRIVATE KEY----- block): %w; %s", ErrAppKey, keyHint)
	}
	var key any
	var err error
	switch blk.Type {
	case "RSA PRIVATE KEY":
		if len(blk.Headers) > 0 { // Proc-Type: 4,ENCRYPTED
			return nil, fmt.Errorf("the RSA private key is encrypted: %w; GitHub gives an unencrypted one: decrypt it (openssl rsa -in KEY -out PLAIN.pem) or generate a new one", ErrAppKey)
		}
		key, err = x509.ParsePKCS1PrivateKey(blk.Bytes)
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(blk.Bytes)
	case "ENCRYPTED PRIVATE KEY":
		return nil, fmt.Errorf("the private key is encrypted: %w; GitHub gives an unencrypted one: decrypt it (openssl pkey -in KEY -out PLAIN.pem) or generate a new one", ErrAppKey)
	default:
		return nil, fmt.Errorf("a PEM %q block, not a private key: %w; %s", blk.Type, ErrAppKey, keyHint)
	}
	if err != nil { // x509's message, which names the structure, not its bytes
		return nil, fmt.Errorf("the %s block does not parse (%v): %w; %s", blk.Type, err, ErrAppKey, keyHint)
	}
	rk, ok := key.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("a %s key, not RSA: %w; GitHub Apps sign with RSA keys: %s", keyKind(key), ErrAppKey, keyHint)
	}
	return rk, nil
}

func keyKind(k any) string {
	s := fmt.Sprintf("%T", k) // *ecdsa.PrivateKey, ed25519.PrivateKey
	s = strings.TrimPrefix(strings.TrimSuffix(s, ".PrivateKey"), "*")
	return strings.ToUpper(s)
}
