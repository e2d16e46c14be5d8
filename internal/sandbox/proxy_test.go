package sandbox

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
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
	allow := []Host{}
	for _, s := range []string{tlsOK.Listener.Addr().String(), plain.Listener.Addr().String()} {
		h, err := ParseHost(s)
		if err != nil {
			t.Fatal(err)
		}
		allow = append(allow, h)
	}
	proxy := httptest.NewServer(&Proxy{Policy: Policy{Network: NetworkHosts, Hosts: allow}})
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
