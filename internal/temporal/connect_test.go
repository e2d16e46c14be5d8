package temporal

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestResolve: the address, namespace, TLS and API key come from the
// temporal.toml profile, the TEMPORAL_* variables over it, and the server's
// own settings over both; what cannot make a connection is an error naming
// it; the API key is never in the description.
func TestResolve(t *testing.T) {
	t.Parallel()
	pki := newPKI(t, "temporal.test")
	toml := filepath.Join(t.TempDir(), "temporal.toml")
	if err := os.WriteFile(toml, []byte(`
[profile.default]
address = "toml:7233"
namespace = "tomlns"

[profile.cloud]
address = "cloud:7233"
namespace = "cloudns"
api_key = "secret-from-toml"
[profile.cloud.tls]
server_ca_cert_path = "`+pki.caFile+`"
server_name = "temporal.test"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(kv ...string) Conn {
		m := map[string]string{"TEMPORAL_CONFIG_FILE": toml}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return Conn{
			Lookup:  func(k string) (string, bool) { v, ok := m[k]; return v, ok },
			Environ: func() []string { return nil },
		}
	}
	for _, tt := range []struct {
		name     string
		s        Server
		describe string
		tls      bool
	}{
		{name: "the default profile", s: Server{Conn: env()}, describe: "toml:7233 (namespace tomlns, no TLS)"},
		{name: "TEMPORAL_* over the profile", s: Server{Conn: env("TEMPORAL_ADDRESS", "env:1", "TEMPORAL_NAMESPACE", "envns")},
			describe: "env:1 (namespace envns, no TLS)"},
		{name: "agentloop's settings over both", s: Server{Address: "own:2", Namespace: "ownns", Conn: env("TEMPORAL_ADDRESS", "env:1")},
			describe: "own:2 (namespace ownns, no TLS)"},
		{name: "a profile with TLS and an API key", s: Server{Conn: withProfile(env(), "cloud")}, tls: true,
			describe: "cloud:7233 (namespace cloudns, TLS with CA " + pki.caFile + ", server name temporal.test, an API key)"},
		{name: "TEMPORAL_PROFILE", s: Server{Conn: env("TEMPORAL_PROFILE", "cloud")}, tls: true,
			describe: "cloud:7233 (namespace cloudns, TLS with CA " + pki.caFile + ", server name temporal.test, an API key)"},
		{name: "mTLS from the environment", s: Server{Conn: env("TEMPORAL_TLS_CLIENT_CERT_PATH", pki.certFile, "TEMPORAL_TLS_CLIENT_KEY_PATH", pki.keyFile,
			"TEMPORAL_TLS_SERVER_CA_CERT_PATH", pki.caFile)}, tls: true,
			describe: "toml:7233 (namespace tomlns, TLS with CA " + pki.caFile + ", client certificate " + pki.certFile + ")"},
		{name: "the flags' TLS over the profile's", s: Server{Conn: withTLS(withProfile(env(), "cloud"), pki)}, tls: true,
			describe: "cloud:7233 (namespace cloudns, TLS with CA " + pki.caFile + ", client certificate " + pki.certFile + ", server name flag.test, an API key)"},
		{name: "an API key alone turns TLS on", s: Server{Conn: env("TEMPORAL_API_KEY", "k")}, tls: true,
			describe: "toml:7233 (namespace tomlns, TLS, an API key)"},
		{name: "TEMPORAL_TLS=false with an API key", s: Server{Conn: env("TEMPORAL_API_KEY", "k", "TEMPORAL_TLS", "false")},
			describe: "toml:7233 (namespace tomlns, no TLS, an API key)"},
		{name: "no configuration file", s: Server{Conn: Conn{ConfigFile: filepath.Join(t.TempDir(), "none.toml"), Lookup: func(string) (string, bool) { return "", false }}},
			describe: "127.0.0.1:7233 (namespace default, no TLS)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := tt.s.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Describe(); got != tt.describe {
				t.Errorf("Describe() = %q, want %q", got, tt.describe)
			}
			if got := r.options.ConnectionOptions.TLS != nil; got != tt.tls {
				t.Errorf("TLS %v, want %v", got, tt.tls)
			}
			if strings.Contains(r.Describe(), "secret") {
				t.Errorf("Describe() shows the API key: %s", r.Describe())
			}
		})
	}

	for _, tt := range []struct {
		name string
		conn Conn
		want string
	}{
		{name: "a profile that is not there", conn: withProfile(env(), "nope"), want: "profile nope"},
		{name: "a certificate without its key", conn: Conn{ClientCert: pki.certFile, Lookup: env().Lookup}, want: "other must be present"},
		{name: "a CA file that is missing", conn: Conn{CACert: filepath.Join(t.TempDir(), "ca.pem"), Lookup: env().Lookup}, want: "ca.pem"},
		{name: "a CA file that is no certificate", conn: Conn{CACert: toml, Lookup: env().Lookup}, want: "CA"},
		{name: "a key that is not the certificate's", conn: Conn{ClientCert: pki.certFile, ClientKey: newPKI(t, "x").keyFile, Lookup: env().Lookup}, want: "private key does not match"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Server{Conn: tt.conn}.Resolve()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Resolve() = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

func withProfile(c Conn, p string) Conn { c.Profile = p; return c }

func withTLS(c Conn, p *pki) Conn {
	c.CACert, c.ClientCert, c.ClientKey, c.ServerName = p.caFile, p.certFile, p.keyFile, "flag.test"
	return c
}

// pki is a CA, a server certificate it signed for 127.0.0.1 and name, and a
// client certificate it signed, in files.
type pki struct {
	caFile, certFile, keyFile string // the CA, the client's certificate and key
	pool                      *x509.CertPool
	server                    tls.Certificate
}

func newPKI(t *testing.T, name string) *pki {
	t.Helper()
	dir := t.TempDir()
	caKey := newKey(t)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "agentloop test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	leaf := func(serial int64, usage x509.ExtKeyUsage) ([]byte, *ecdsa.PrivateKey) {
		key := newKey(t)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			DNSNames: []string{name}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return der, key
	}
	p := &pki{caFile: filepath.Join(dir, "ca.pem"), certFile: filepath.Join(dir, "client.pem"), keyFile: filepath.Join(dir, "client.key"), pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	writePEM(t, p.caFile, "CERTIFICATE", caDER)
	clientDER, clientKey := leaf(2, x509.ExtKeyUsageClientAuth)
	writePEM(t, p.certFile, "CERTIFICATE", clientDER)
	writePEM(t, p.keyFile, "EC PRIVATE KEY", marshalKey(t, clientKey))
	serverDER, serverKey := leaf(3, x509.ExtKeyUsageServerAuth)
	p.server = tls.Certificate{Certificate: [][]byte{serverDER}, PrivateKey: serverKey}
	return p
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func marshalKey(t *testing.T, k *ecdsa.PrivateKey) []byte {
	t.Helper()
	b, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestUnreachable: a server that does not answer (unavailable, a call that
// timed out) is told from one that answers no.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"none", nil, false},
		{"unavailable", serviceerror.NewUnavailable("connection refused"), true},
		{"wrapped", fmt.Errorf("read run build: %w", serviceerror.NewUnavailable("connection refused")), true},
		{"deadline exceeded", serviceerror.NewDeadlineExceeded("deadline exceeded"), true},
		{"call timed out", fmt.Errorf("read run build: %w", context.DeadlineExceeded), true},
		{"grpc unavailable", status.Error(codes.Unavailable, "transport is closing"), true},
		{"not found", serviceerror.NewNotFound("workflow not found"), false},
		{"refused", serviceerror.NewPermissionDenied("no", ""), false},
		{"interrupted", context.Canceled, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Unreachable(tt.err); got != tt.want {
				t.Errorf("Unreachable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
