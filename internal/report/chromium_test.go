package report

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/testenv"
)

// chromium finds a headless-capable Chromium, or skips (fails under CI=true).
func chromium(t *testing.T) string {
	t.Helper()
	return testenv.NeedTool(t, "chromium", "chromium-browser", "google-chrome")
}

// artifactDir is where the screenshots go: $AGENTLOOP_ARTIFACTS, else a temp dir.
func artifactDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("AGENTLOOP_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// layoutJS measures what a person sees in the rendered page (see layout).
//
//go:embed testdata/layout.js
var layoutJS string

// layout is what layoutJS reports.
type layout struct {
	Viewport int          `json:"viewport"`
	Problems []string     `json:"problems"`
	Charts   []chartShown `json:"charts"`
	Tasks    int          `json:"tasks"` // task boxes drawn with a non-zero size
}

// chartShown is one chart as rendered.
type chartShown struct {
	Chart  string  `json:"chart"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Points int     `json:"points"` // data-points: the known values
	Marks  int     `json:"marks"`  // points drawn visibly inside the chart
	Shapes int     `json:"shapes"` // lines and bars drawn with a non-zero size
	Empty  bool    `json:"empty"`  // the "no data" text is shown
}

// graphRun is a task graph's report as the session package builds it: a state
// without iterations, a wide graph of fourteen tasks, three of them with their
// run (an escalated one, a long one, one without an iteration yet).
func graphRun() Run {
	ts := longRun().Tasks
	st := &state.State{Version: state.StateVersion, Name: "storage", Procedure: "task graph tasks.md",
		Status: state.StatusEscalated, TotalIterations: 34}
	escalated, long := sampleRun(), longRun()
	long.Tasks = nil
	started := Run{State: &state.State{Version: state.StateVersion, Name: "storage-task-02", Status: state.StatusRunning, StartedAt: t0}}
	ts[0].Run, ts[2].Run, ts[6].Run = &long, &started, &escalated
	ts[6].Iterations, ts[6].Usage, ts[6].Reason = 4, escalated.State.Spend.Usage, escalated.State.Reason
	return Run{State: st, Tasks: ts}
}

// TestReportInChromium renders the run report (a short run with a task graph,
// a run of three segments and a 30-iteration run) and a task graph's report in headless Chromium at a
// desktop (1280 px) and a phone (390 px) width, and checks what a person sees:
// every chart has a size and shows each known value as a visible mark (or says
// it has none), nothing is wider than the viewport or cut off by a scrolling
// box, no text runs out of its chart or task box. Screenshots of every page
// and width are kept in $AGENTLOOP_ARTIFACTS.
func TestReportInChromium(t *testing.T) {
	if testing.Short() && !testenv.CI() {
		t.Skip("starts a browser")
	}
	b := startBrowser(t, chromium(t))
	dir := artifactDir(t)
	long := longRun()
	long.Tasks = nil
	pages := []struct {
		name   string
		run    Run
		charts int
	}{
		{"report", sampleRun(), 5},
		{"report-segments", segmentedRun(), 5}, // three segments, a cut attempt, every hand-off
		{"report-long", long, 3},               // tokens and cost unknown: one line, no chart
		{"graph", graphRun(), 5 + 3},
	}
	for _, p := range pages {
		var html bytes.Buffer
		if err := HTML(&html, p.run); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, p.name+".html")
		if err := os.WriteFile(file, html.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, width := range []int{1280, 390} {
			t.Run(fmt.Sprintf("%s/%dpx", p.name, width), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
				defer cancel()
				if err := b.open(ctx, "file://"+file, width, 900); err != nil {
					t.Fatal(err)
				}
				var got layout
				if err := b.eval(ctx, layoutJS, &got); err != nil {
					t.Fatal(err)
				}
				shot := filepath.Join(dir, fmt.Sprintf("%s-%d.png", p.name, width))
				if err := b.screenshot(ctx, shot, width); err != nil {
					t.Errorf("screenshot: %v", err)
				}
				if got.Viewport != width {
					t.Errorf("viewport %d px, want %d", got.Viewport, width)
				}
				for _, pr := range got.Problems {
					t.Errorf("%s", pr)
				}
				if len(got.Charts) != p.charts {
					t.Errorf("%d charts rendered, want %d", len(got.Charts), p.charts)
				}
				for _, c := range got.Charts {
					switch {
					case c.Width < 100 || c.Height < 50:
						t.Errorf("chart %s rendered %.0f×%.0f px", c.Chart, c.Width, c.Height)
					case c.Marks != c.Points:
						t.Errorf("chart %s: %d of its %d values drawn as visible marks", c.Chart, c.Marks, c.Points)
					case c.Points > 1 && c.Shapes == 0:
						t.Errorf("chart %s: no line or bar drawn for %d values", c.Chart, c.Points)
					case c.Points == 0 && !c.Empty:
						t.Errorf("chart %s: no values and no text saying so", c.Chart)
					}
				}
				if got.Tasks != len(p.run.Tasks) {
					t.Errorf("%d task boxes drawn, want %d", got.Tasks, len(p.run.Tasks))
				}
				if t.Failed() {
					t.Logf("screenshot: %s", shot)
				}
			})
		}
	}
	if !strings.HasPrefix(dir, os.TempDir()) {
		t.Logf("screenshots in %s", dir)
	}
}
