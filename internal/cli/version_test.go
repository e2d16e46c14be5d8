package cli

import (
	"runtime/debug"
	"testing"
)

// A release says its stamp; go install …@v1.2.0 its module version; a
// checkout build devel and its commit.
func TestDescribeBuild(t *testing.T) {
	t.Parallel()
	checkout := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "25cd20c4b1e7aa0011223344556677889900aabb"},
		{Key: "vcs.time", Value: "2026-11-28T19:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	for _, tc := range []struct {
		name string
		s    stamp
		bi   *debug.BuildInfo
		want string
	}{
		{"a release", stamp{"v1.2.0", "1a2b3c4d5e6f7a8b", "2026-11-28T10:00:00Z"}, checkout, "v1.2.0 (commit 1a2b3c4d5e6f, built 2026-11-28T10:00:00Z)"},
		{"go install @v1.2.0", stamp{}, &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{"a checkout", stamp{}, checkout, "devel (commit 25cd20c4b1e7 with changes, built 2026-11-28T19:00:00Z)"},
		{"go 1.24's checkout version", stamp{}, &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261128190000-25cd20c4b1e7+dirty"}},
			"v0.0.0-20261128190000-25cd20c4b1e7+dirty"},
		{"no build information", stamp{}, nil, "devel"},
		{"a build without version control", stamp{}, &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
	} {
		if got := describeBuild(tc.s, tc.bi); got != tc.want {
			t.Errorf("%s: describeBuild = %q, want %q", tc.name, got, tc.want)
		}
	}
}
