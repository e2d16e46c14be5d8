package testenv

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestStartTemporalTakesAnotherPort: a dev server that exits before it
// listens (its port taken between its choice and its bind) is started again
// on another port. The temporal CLI is played by a script: its first start
// fails as a taken port makes the real one fail, its second listens.
func TestStartTemporalTakesAnotherPort(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the temporal CLI is played by a shell script")
	}
	py := NeedTool(t, "python3")
	dir := t.TempDir()
	bin := filepath.Join(dir, "temporal")
	script := `#!/bin/sh
if [ ! -e "` + dir + `/tried" ]; then : > "` + dir + `/tried"; echo "bind: address already in use" >&2; exit 2; fi
while [ "$1" != --port ]; do shift; done
exec "` + py + `" -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(600)' "$2"
`
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s := StartTemporal(t, bin, filepath.Join(dir, "temporal.db"))
	if _, err := os.Stat(filepath.Join(dir, "tried")); err != nil {
		t.Fatalf("the first start was not tried: %v", err)
	}
	c, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatalf("the server started again does not listen on %s: %v", s.Addr, err)
	}
	c.Close()
	if !strings.HasPrefix(s.Addr, "127.0.0.1:") {
		t.Errorf("address %s", s.Addr)
	}
}
