package temporal

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/client"

	"github.com/agentloop/agentloop/internal/testenv"
)

// DevServer is a file-backed dev server on a random port, for the end-to-end
// tests of package temporal_test (which run the agentloop command).
type DevServer struct{ s *devServer }

// StartDevServer starts a dev server; it is killed when the test ends. It skips
// the test without the temporal CLI (fails under CI=true).
func StartDevServer(t *testing.T) *DevServer {
	t.Helper()
	s := &devServer{bin: testenv.NeedTool(t, "temporal"), db: filepath.Join(t.TempDir(), "temporal.db"), addr: freeAddr(t)}
	startServer(t, s)
	return &DevServer{s: s}
}

// Addr is the server's host:port.
func (d *DevServer) Addr() string { return d.s.addr }

// Kill kills the server with SIGKILL.
func (d *DevServer) Kill() { d.s.kill() }

// Restart starts the killed server again on its port and its file.
func (d *DevServer) Restart(t *testing.T) { startServer(t, d.s) }

// Dial connects once the server answers.
func (d *DevServer) Dial(t *testing.T) client.Client { return dialReady(t, d.s.addr) }
