package temporal

import (
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// tlsProxy is a secured front of a plain dev server, as a production cluster
// or Temporal Cloud is: TLS with a certificate of the test's CA, with mTLS the
// client's certificate required, with apiKey every call's bearer token
// checked.
type tlsProxy struct {
	addr string
}

func startTLSProxy(t *testing.T, backend string, p *pki, mtls bool, apiKey string) *tlsProxy {
	t.Helper()
	target := &url.URL{Scheme: "http", Host: backend}
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true) // gRPC to the dev server: HTTP/2 without TLS
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport:     tr,
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if apiKey != "" && r.Header.Get("Authorization") != "Bearer "+apiKey {
			w.Header().Set("Content-Type", "application/grpc")
			w.Header().Set("Grpc-Status", "16") // UNAUTHENTICATED
			w.Header().Set("Grpc-Message", "the API key is missing or wrong")
			w.WriteHeader(http.StatusOK)
			return
		}
		rp.ServeHTTP(w, r)
	})
	conf := &tls.Config{Certificates: []tls.Certificate{p.server}, NextProtos: []string{"h2"}, MinVersion: tls.VersionTLS12}
	if mtls {
		conf.ClientAuth, conf.ClientCAs = tls.RequireAndVerifyClientCert, p.pool
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", conf)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: time.Minute, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return &tlsProxy{addr: l.Addr().String()}
}

// TestSecuredServer runs a loop through a TLS front of a real dev server
// with mTLS and an API key, the settings read as the Temporal CLI's from the
// environment (TEMPORAL_TLS_*, TEMPORAL_API_KEY) and from the server's own
// settings, and another through a front with TLS alone (no client
// certificate, as a cluster behind a load balancer asks); a wrong CA, a missing client certificate, a wrong API key, no
// TLS, a refused connection and a namespace the server does not have are each
// an error saying so.
func TestSecuredServer(t *testing.T) {
	if testing.Short() {
		t.Skip("a dev server")
	}
	srv, plain := newDevServer(t)
	plain.Close()
	p := newPKI(t, "temporal.test")
	const key = "test-api-key-0123456789"
	front := startTLSProxy(t, srv.addr, p, true, key)
	env := func(kv ...string) Conn {
		m := map[string]string{"TEMPORAL_CONFIG_FILE": "/nonexistent/temporal.toml"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return Conn{Lookup: func(k string) (string, bool) { v, ok := m[k]; return v, ok }, Environ: func() []string { return nil }}
	}
	log := slog.New(slog.DiscardHandler)
	secured := Server{Address: front.addr, Namespace: "default", Conn: env(
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH", p.caFile, "TEMPORAL_TLS_CLIENT_CERT_PATH", p.certFile,
		"TEMPORAL_TLS_CLIENT_KEY_PATH", p.keyFile, "TEMPORAL_TLS_SERVER_NAME", "temporal.test", "TEMPORAL_API_KEY", key)}
	c, err := Dial(t.Context(), secured, log)
	if err != nil {
		t.Fatalf("dial through mTLS and an API key: %v", err)
	}
	defer c.Close()
	queue := "secured-" + fmt.Sprint(time.Now().UnixNano())
	s := &script{results: []func(int) (evidence.Iteration, error){gate(false, 1), gate(true, 0)}}
	w := startWorker(t, c, queue, s)
	defer w.Stop()
	runThrough(t, c, queue, s)

	other := newPKI(t, "temporal.test")
	refused := freeAddr(t)
	tlsOnly := startTLSProxy(t, srv.addr, p, false, "")
	for _, tt := range []struct {
		name string
		s    Server
		want []string
		run  bool // a loop runs through the connection
	}{
		{name: "TLS alone, the CA from the environment", s: Server{Address: tlsOnly.addr, Namespace: "default", Conn: env(
			"TEMPORAL_TLS_SERVER_CA_CERT_PATH", p.caFile, "TEMPORAL_TLS_SERVER_NAME", "temporal.test")}, run: true},
		{name: "TLS alone, the CA from the flags", s: Server{Address: tlsOnly.addr, Conn: Conn{CACert: p.caFile, ServerName: "temporal.test", Lookup: env().Lookup}}},
		{name: "no TLS to a front asking TLS alone", s: Server{Address: tlsOnly.addr, Conn: env()},
			want: []string{"cannot reach the Temporal server at " + tlsOnly.addr + " (namespace default, no TLS)"}},
		{name: "TLS alone with a CA that did not sign the server's certificate", s: Server{Address: tlsOnly.addr, Conn: Conn{CACert: other.caFile, ServerName: "temporal.test", Lookup: env().Lookup}},
			want: []string{"cannot reach the Temporal server at " + tlsOnly.addr, "TLS with CA " + other.caFile, "certificate"}},
		{name: "the flags' settings", s: Server{Address: front.addr, Namespace: "default", Conn: withAPIKey(withTLS(env(), p), key, "temporal.test")}},
		{name: "a CA that did not sign the server's certificate", s: Server{Address: front.addr, Conn: withAPIKey(withTLS(env(), other), key, "temporal.test")},
			want: []string{"cannot reach the Temporal server at " + front.addr, "TLS with CA " + other.caFile, "certificate", "TLS settings"}},
		{name: "no client certificate", s: Server{Address: front.addr, Conn: withAPIKey(Conn{CACert: p.caFile, ServerName: "temporal.test", Lookup: env().Lookup}, key, "")},
			want: []string{"cannot reach the Temporal server at " + front.addr + " (namespace default, TLS with CA " + p.caFile, "TLS settings"}},
		{name: "a wrong API key", s: Server{Address: front.addr, Conn: withAPIKey(withTLS(env(), p), "wrong", "temporal.test")},
			want: []string{"cannot reach the Temporal server at " + front.addr, "an API key)", "API key is missing or wrong"}},
		{name: "no TLS", s: Server{Address: front.addr, Conn: env()},
			want: []string{"cannot reach the Temporal server at " + front.addr + " (namespace default, no TLS)"}},
		{name: "a refused connection", s: Server{Address: refused, Conn: env()},
			want: []string{"cannot reach the Temporal server at " + refused, "connection refused", "temporal server start-dev"}},
		{name: "a namespace the server does not have", s: Server{Address: srv.addr, Namespace: "nowhere", Conn: env()},
			want: []string{"has no namespace nowhere", "temporal operator namespace create --namespace nowhere"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Dial(t.Context(), tt.s, log)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if tt.run {
					runThrough(t, c, queue, s)
				}
				return
			}
			if err == nil {
				c.Close()
				t.Fatalf("dial: no error, want one saying %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("dial: %v\nwant it to say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), key) {
				t.Errorf("the error shows the API key: %v", err)
			}
		})
	}
}

// runThrough runs a loop started and followed through the client c, its
// steps on the worker of queue running the script s.
func runThrough(t *testing.T, c client.Client, queue string, s *script) {
	t.Helper()
	in := input(budget.Limits{MaxIterations: 3, FailureThreshold: 3}, true)
	in.Run.Name = "through-" + fmt.Sprint(time.Now().UnixNano())
	if err := Start(t.Context(), c, Server{TaskQueue: queue}, in, time.Now()); err != nil {
		t.Fatal(err)
	}
	var out loop.Outcome
	if err := c.GetWorkflow(t.Context(), WorkflowID(in.Run.Name), "").Get(t.Context(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != state.StatusSucceeded {
		t.Errorf("the run through the connection: %s %q, want succeeded", out.Status, out.Reason)
	}
}

func withAPIKey(c Conn, key, serverName string) Conn {
	c.APIKey = key
	if serverName != "" {
		c.ServerName = serverName
	}
	return c
}
