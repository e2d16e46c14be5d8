package app

import (
	"io"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/ui"
)

// An issue's run keeps its issue in its state from its start, and is asked
// what the issue asks again at every resume, in its worktree, on either
// engine ([ResumePlan]).
func TestIssueRunKeepsItsTask(t *testing.T) {
	t.Parallel()
	wd := t.TempDir()
	p := testPlan(wd, "issue-7")
	p.Issue = &state.Issue{Ref: "acme/tool#7", Task: "Resolve issue acme/tool#7: crash", Branch: "agentloop/issue/7", Comment: 101}
	s, err := Open(testProcess(wd), p, ui.New(ui.Options{Out: io.Discard, Now: time.Now}), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	st := s.State()
	s.Close()
	if st.Issue == nil || !reflect.DeepEqual(*st.Issue, *p.Issue) {
		t.Fatalf("a new run's state keeps the issue as %+v", st.Issue)
	}
	st.WorkDir = filepath.Join(wd, ".agentloop", "worktrees", "issue", "7")
	agentCmd := "my-agent --yes"
	configure := func(dir string, recorded []string) (*config.Config, []string, error) {
		cfg, err := config.Load(config.Options{WorkDir: dir, Getenv: func(string) string { return "" }, UserConfigDir: t.TempDir(), Flags: config.Overrides{AgentCmd: &agentCmd}})
		return cfg, recorded, err
	}
	rp, err := ResumePlan(st, nil, configure, wd, func(string) string { return "" }, false)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Task != p.Issue.Task || rp.WorkDir != st.WorkDir || rp.Issue != st.Issue || rp.Issues.Labels != config.DefaultIssueLabels {
		t.Errorf("the resumed plan is asked %q in %s (issue %+v)", rp.Task, rp.WorkDir, rp.Issue)
	}
}
