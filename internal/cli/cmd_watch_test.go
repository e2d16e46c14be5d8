package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

// The engine's flags given to watch are those its answers' commands get;
// watch's own flags are not.
func TestWatchEngineFlags(t *testing.T) {
	t.Parallel()
	var o watchOptions
	fs := pflag.NewFlagSet("watch", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--once", "--engine", "temporal", "--interval=1s", "--temporal-address", "127.0.0.1:7233", "--temporal-tls", "--config", "a.yaml"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"--config=a.yaml", "--engine=temporal", "--temporal-address=127.0.0.1:7233", "--temporal-tls=true"}
	if diff := cmp.Diff(want, engineFlags(fs)); diff != "" {
		t.Errorf("engineFlags (-want +got):\n%s", diff)
	}
}
