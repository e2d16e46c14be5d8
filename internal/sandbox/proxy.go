package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// Blocked starts the error a sandbox's proxy answers for a host that is not
// on the allow-list, so that the agent's log says who refused it.
const Blocked = "agentloop sandbox: blocked"

// dialTimeout bounds how long the proxy and the forwards wait for a host.
const dialTimeout = 30 * time.Second

// Proxy is the sandbox's filtering HTTP proxy: it lets through a CONNECT
// (HTTPS, or any TCP tunnel) and a plain HTTP request only to a host the
// policy allows, and answers 403 with [Blocked] otherwise.
type Proxy struct {
	Policy policy.Policy
	dial   net.Dialer
	rp     *httputil.ReverseProxy
	once   sync.Once
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Host == "" {
		http.Error(w, "agentloop sandbox: this is a proxy; ask for an absolute URL (http://host/path) or CONNECT host:port", http.StatusBadRequest)
		return
	}
	host, port := splitHostPort(r.URL.Host, r.URL.Scheme)
	if !p.Policy.Allowed(host, port) {
		p.deny(w, host, port)
		return
	}
	p.once.Do(func() {
		p.rp = &httputil.ReverseProxy{
			Rewrite: func(pr *httputil.ProxyRequest) {
				pr.Out.URL = pr.In.URL
				pr.Out.Host = pr.In.Host
			},
			Transport:     &http.Transport{DialContext: p.dial.DialContext, Proxy: nil, ResponseHeaderTimeout: 0},
			FlushInterval: -1, // streamed replies (server-sent events) pass at once
			ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
				http.Error(w, "agentloop sandbox: "+err.Error(), http.StatusBadGateway)
			},
		}
	})
	p.rp.ServeHTTP(w, r)
}

// connect tunnels a CONNECT to an allowed host.
func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	host, port := splitHostPort(r.Host, "https")
	if !p.Policy.Allowed(host, port) {
		p.deny(w, host, port)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), dialTimeout)
	up, err := p.dial.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	cancel()
	if err != nil {
		http.Error(w, "agentloop sandbox: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "agentloop sandbox: cannot tunnel", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if _, err := down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		up.Close()
		down.Close()
		return
	}
	splice(up, &bufferedConn{Conn: down, r: buf.Reader})
}

func (p *Proxy) deny(w http.ResponseWriter, host string, port int) {
	w.Header().Set("X-Agentloop-Sandbox", "blocked")
	http.Error(w, fmt.Sprintf("%s a connection to %s: not on the allow-list (%s)", Blocked, net.JoinHostPort(host, strconv.Itoa(port)), p.Policy.HostList()), http.StatusForbidden)
}

// splitHostPort reads host[:port], the port defaulting by scheme.
func splitHostPort(hostport, scheme string) (string, int) {
	host, ps, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.Trim(hostport, "[]")
		if scheme == "http" {
			return host, 80
		}
		return host, 443
	}
	port, err := strconv.Atoi(ps)
	if err != nil {
		return host, 0
	}
	return host, port
}

// bufferedConn is a hijacked connection whose reads start with what the
// HTTP server had already buffered.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// splice copies both ways until either side is done, then closes both.
func splice(a, b net.Conn) {
	var wg sync.WaitGroup
	half := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		} else {
			_ = dst.Close()
		}
	}
	wg.Add(2)
	go half(a, b)
	go half(b, a)
	wg.Wait()
	_ = a.Close()
	_ = b.Close()
}

// serve accepts on l until it is closed, handing each connection to handle
// in a goroutine of its own.
func serve(l net.Listener, handle func(net.Conn)) {
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // a transient accept error (too many files)
			continue
		}
		go handle(c)
	}
}

// forward passes connections to target (a TCP host:port).
func forward(target string) func(net.Conn) {
	return func(c net.Conn) {
		up, err := net.DialTimeout("tcp", target, dialTimeout)
		if err != nil {
			_ = c.Close()
			return
		}
		splice(c, up)
	}
}

// hostSide is what serves a sandbox's network from outside: the proxy and
// the forwards of allowed local ports, each on a listener of its own.
type hostSide struct {
	listeners []net.Listener
	server    *http.Server
}

// close stops every listener (the connections under way end with them).
func (h *hostSide) close() {
	if h == nil {
		return
	}
	if h.server != nil {
		_ = h.server.Close()
	}
	for _, l := range h.listeners {
		_ = l.Close()
	}
}
