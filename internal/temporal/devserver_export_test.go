package temporal

import (
	"testing"

	"go.temporal.io/sdk/client"
)

// DevServer is a file-backed dev server on a random port, for the end-to-end
// tests of package temporal_test (which run the agentloop command).
type DevServer struct{ s *devServer }

// StartDevServer starts a dev server; it is killed when the test ends. It skips
// the test without the temporal CLI (fails under CI=true).
func StartDevServer(t *testing.T) *DevServer {
	t.Helper()
	return &DevServer{s: startDevServer(t)}
}

// Addr is the server's host:port.
func (d *DevServer) Addr() string { return d.s.addr }

// Kill kills the server with SIGKILL.
func (d *DevServer) Kill() { d.s.kill() }

// Restart starts the killed server again on its port and its file.
func (d *DevServer) Restart(t *testing.T) { d.s.restart(t) }

// Dial connects once the server answers.
func (d *DevServer) Dial(t *testing.T) client.Client { return dialReady(t, d.s.addr) }
