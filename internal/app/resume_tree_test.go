package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/testenv"
)

// ResumeTree says in one line what the tree holds beyond agentloop's last
// checkpoint, and a tree the person changed after the stop becomes the floor
// of later rollbacks: a checkpoint from before it is no target, so the
// decider never takes the person's work out of the tree. --undo-cut with a cut
// attempt leaves the floor alone (the tree goes back to a checkpoint, the
// person's work to a backup ref) and is asked of the loop.
func TestResumeTree(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "git")
	for _, tt := range []struct {
		name    string
		edit    bool
		undo    *state.Undo
		undoCut bool
		line    string
		floor   int
	}{
		{name: "unchanged", line: "continuing from your work tree: unchanged since the stop"},
		{name: "edited", edit: true, line: "continuing from your work tree: 2 files changed since the stop (README.md, hint.txt)", floor: 3},
		{name: "edited after a cut", edit: true, undo: &state.Undo{Seq: 3, Start: "s"},
			line: "continuing from your work tree: 2 files changed since the stop (README.md, hint.txt); what the cut attempt 3 left stays in it", floor: 3},
		{name: "undo-cut", edit: true, undo: &state.Undo{Seq: 3, Start: "s"}, undoCut: true,
			line: "--undo-cut: the work tree goes back where attempt 3 started; what it holds now is kept in a backup ref first"},
		{name: "undo-cut without a cut", edit: true, undoCut: true,
			line: "--undo-cut: no attempt was cut (the run stopped between attempts), nothing to undo; continuing from your work tree: 2 files changed", floor: 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wd := t.TempDir()
			write := func(name, text string) {
				if err := os.WriteFile(filepath.Join(wd, name), []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			write("README.md", "a project\n")
			for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start"}} {
				cmd := exec.Command("git", args...)
				cmd.Dir = wd
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v: %s", args, err, out)
				}
			}
			ws := &gitx.Workspace{Dir: wd}
			last, _, err := ws.Snapshot(t.Context(), "refs/agentloop/build/r1/iter-3", "the stop")
			ws.Close()
			if err != nil {
				t.Fatal(err)
			}
			if tt.edit {
				write("hint.txt", "use the blue widget\n")
				write("README.md", "edited by me\n")
			}
			st := &state.State{Attempts: 3, Tree: last, Undo: tt.undo}
			line := ResumeTree(t.Context(), st, wd, "", tt.undoCut)
			if !strings.HasPrefix(line, tt.line) {
				t.Errorf("line %q, want it to start with %q", line, tt.line)
			}
			if st.Floor != tt.floor || st.UndoCut != tt.undoCut {
				t.Errorf("floor %d, undo-cut %v: want %d, %v", st.Floor, st.UndoCut, tt.floor, tt.undoCut)
			}
		})
	}
}
