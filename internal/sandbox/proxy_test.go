package sandbox

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// The proxy tunnels HTTPS (CONNECT) and forwards plain HTTP to the hosts the
// policy allows, and refuses any other with the sandbox's words.
func TestProxy(t *testing.T) {
	t.Parallel()
	tlsOK := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "tls ok") }))
	defer tlsOK.Close()
	tlsOther := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "tls other") }))
	defer tlsOther.Close()
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "plain "+r.URL.Path) }))
	defer plain.Close()
	allow := []policy.Host{}
	for _, s := range []string{tlsOK.Listener.Addr().String(), plain.Listener.Addr().String()} {
		h, err := policy.ParseHost(s)
		if err != nil {
			t.Fatal(err)
		}
		allow = append(allow, h)
	}
	proxy := httptest.NewServer(&Proxy{Policy: policy.Policy{Network: policy.NetworkHosts, Hosts: allow}})
	defer proxy.Close()
	pu, _ := url.Parse(proxy.URL)
	client := func(base *http.Client) *http.Client {
		tr := base.Transport.(*http.Transport).Clone()
		tr.Proxy = http.ProxyURL(pu)
		return &http.Client{Transport: tr}
	}
	tests := []struct {
		name string
		c    *http.Client
		url  string
		want string // the body, or what the error says
	}{
		{"https allowed", client(tlsOK.Client()), tlsOK.URL, "tls ok"},
		{"https refused", client(tlsOther.Client()), tlsOther.URL, "Forbidden"},
		{"http allowed", client(plain.Client()), plain.URL + "/x", "plain /x"},
		{"http refused", client(plain.Client()), "http://example.invalid/", Blocked + " a connection to example.invalid:80"},
	}
	for _, tt := range tests {
		resp, err := tt.c.Get(tt.url)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got = string(b)
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestProxyRefusedReachesNothing: a client that ignores the 403 and goes on
// (a raw socket sending its request right after the CONNECT, as if the
// tunnel were open) gets nothing of a refused host, which never hears of it.
func TestProxyRefusedReachesNothing(t *testing.T) {
	t.Parallel()
	var reached atomic.Int32
	refused := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reached.Add(1)
		io.WriteString(w, "SECRET OF THE REFUSED HOST")
	}))
	defer refused.Close()
	proxy := httptest.NewServer(&Proxy{Policy: policy.Policy{Network: policy.NetworkHosts}})
	defer proxy.Close()
	target := refused.Listener.Addr().String()
	tests := []struct{ name, send string }{
		{"CONNECT", "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\nConnection: close\r\n\r\n" +
			"GET / HTTP/1.1\r\nHost: " + target + "\r\nConnection: close\r\n\r\n"},
		{"plain HTTP", "GET http://" + target + "/ HTTP/1.1\r\nHost: " + target + "\r\nConnection: close\r\n\r\n"},
	}
	for _, tt := range tests {
		c, err := net.Dial("tcp", proxy.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, tt.send)
		got, err := io.ReadAll(c) // the 403 and whatever follows, until the proxy closes
		c.Close()
		if err != nil {
			t.Fatalf("%s: read what the proxy sent: %v (so far %q)", tt.name, err, got)
		}
		if !strings.HasPrefix(string(got), "HTTP/1.1 403 ") || !strings.Contains(string(got), Blocked) {
			t.Errorf("%s: the proxy answered %q, want a 403 saying %q", tt.name, got, Blocked)
		}
		if strings.Contains(string(got), "SECRET") || strings.Contains(string(got), "200 Connection established") {
			t.Errorf("%s: a refused request went through:\n%s", tt.name, got)
		}
		if n := reached.Swap(0); n != 0 {
			t.Errorf("%s: the refused host was reached %d times", tt.name, n)
		}
	}
}
