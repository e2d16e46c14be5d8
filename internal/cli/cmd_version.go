package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Version, Commit and Date describe a release build: the release stamps them
// with -ldflags -X (.goreleaser.yaml). A build from source leaves them empty,
// and its build information says what there is.
var (
	Version = ""
	Commit  = ""
	Date    = ""
)

// stamp is a release build's Version, Commit and Date.
type stamp struct{ version, commit, date string }

// version says which build this is, in one line after "agentloop ".
func version() string {
	bi, _ := debug.ReadBuildInfo()
	return describeBuild(stamp{Version, Commit, Date}, bi) + ", " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
}

// describeBuild says which build s and bi (nil: none) describe: a release's
// stamped version, commit and date ("v1.2.0 (commit 1a2b3c4, built
// 2026-11-28T10:00:00Z)"); else the module version go install recorded
// ("v1.2.0" for …@v1.2.0), with the commit when the build has one; else
// "devel" and the checkout's commit, whether it had changes, and its time.
func describeBuild(s stamp, bi *debug.BuildInfo) string {
	vcs := map[string]string{}
	if bi != nil {
		for _, kv := range bi.Settings {
			vcs[kv.Key] = kv.Value
		}
	}
	commit, date := s.commit, s.date
	if commit == "" {
		commit = vcs["vcs.revision"]
		if date == "" {
			date = vcs["vcs.time"]
		}
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	v := s.version
	if v == "" && bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	var parts []string
	if commit != "" {
		c := "commit " + commit
		if s.commit == "" && vcs["vcs.modified"] == "true" {
			c += " with changes"
		}
		parts = append(parts, c)
	}
	if date != "" {
		parts = append(parts, "built "+date)
	}
	if v == "" {
		v = "devel"
	}
	if len(parts) == 0 {
		return v
	}
	return v + " (" + strings.Join(parts, ", ") + ")"
}

func newVersionCmd(d Deps) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Long: "Print the version of this build: a release's version, commit and build date; the module version of a `go install …@version`; " +
			"or devel and the commit of a build from a checkout; then the Go version and the platform." + exitStatus(exitSuccess, exitUsageLine),
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(d.Stdout, "agentloop %s\n", version())
			return nil
		},
	}
}
