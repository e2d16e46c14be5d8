package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// hookserver [-status CODE | -silent] [-secret S] VAR DIR: a receiver of
// notifications on 127.0.0.1 for the rest of the script, its URL in $VAR.
// Each request it reads is kept as DIR/N.body, with DIR/N.head holding its
// path, its X-Agentloop-* headers and whether its X-Agentloop-Signature-256
// is the HMAC-SHA256 of the body with the secret ("signature: valid",
// "signature: invalid", "signature: none"). It answers CODE (default 200),
// or with -silent never answers.
func cmdHookServer(ts *testscript.TestScript, neg bool, args []string) {
	status, silent, secret := http.StatusOK, false, ""
	for len(args) > 0 && len(args[0]) > 0 && args[0][0] == '-' {
		switch {
		case args[0] == "-silent":
			silent, args = true, args[1:]
		case args[0] == "-status" && len(args) > 1:
			n, err := strconv.Atoi(args[1])
			ts.Check(err)
			status, args = n, args[2:]
		case args[0] == "-secret" && len(args) > 1:
			secret, args = args[1], args[2:]
		default:
			ts.Fatalf("hookserver: unknown flag %s", args[0])
		}
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: hookserver [-status CODE | -silent] [-secret S] VAR DIR")
	}
	dir := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(dir, 0o755))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	stop := make(chan struct{})
	var mu sync.Mutex
	n := 0
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		sig := "none"
		if got := r.Header.Get("X-Agentloop-Signature-256"); got != "" {
			m := hmac.New(sha256.New, []byte(secret))
			m.Write(body)
			sig = "invalid"
			if hmac.Equal([]byte(got), []byte("sha256="+hex.EncodeToString(m.Sum(nil)))) {
				sig = "valid"
			}
		}
		head := fmt.Sprintf("path: %s\nevent: %s\ndelivery: %s\nsignature: %s\n", r.URL.Path,
			r.Header.Get("X-Agentloop-Event"), r.Header.Get("X-Agentloop-Delivery"), sig)
		_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.body", k)), body, 0o644)
		_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.head", k)), []byte(head), 0o644)
		if silent {
			select {
			case <-stop:
			case <-r.Context().Done():
			}
			return
		}
		w.WriteHeader(status)
	})}
	go func() { _ = srv.Serve(ln) }()
	ts.Defer(func() {
		close(stop)
		_ = srv.Close()
	})
	ts.Setenv(args[0], "http://"+ln.Addr().String())
}
