package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/testenv"
)

// chromium finds a headless-capable Chromium, or skips (fails under CI=true).
func chromium(t *testing.T) string {
	t.Helper()
	return testenv.NeedTool(t, "chromium", "chromium-browser", "google-chrome")
}

// artifactDir is where the screenshot goes: $AGENTLOOP_ARTIFACTS, else a temp dir.
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

func runChromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.Bytes()
}

// TestHTMLInChromium renders the report in headless Chromium: the DOM it builds
// must hold every chart's points, and a screenshot is kept as an artifact.
func TestHTMLInChromium(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("starts a browser")
	}
	bin := chromium(t)
	r := sampleRun()
	r.Tasks = sampleTasks()
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(artifactDir(t), "report.html")
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := runChromium(t, bin, "--dump-dom", "file://"+page)
	charts := regexp.MustCompile(`<svg class="chart" data-chart="(\w+)" data-points="(\d+)"[^>]*>(.*?)</svg>`).FindAllSubmatch(dom, -1)
	if len(charts) != 5 {
		t.Fatalf("DOM has %d charts, want 5", len(charts))
	}
	pt := regexp.MustCompile(`<circle class="pt" [^>]*data-value="[-0-9.]+"`)
	for _, c := range charts {
		want, _ := strconv.Atoi(string(c[2]))
		if got := len(pt.FindAll(c[3], -1)); got != want || got == 0 {
			t.Errorf("chart %s: %d points in the DOM, data-points=%d", c[1], got, want)
		}
	}
	if n := bytes.Count(dom, []byte(`class="task state-`)); n != len(r.Tasks) {
		t.Errorf("DOM task graph has %d tasks, want %d", n, len(r.Tasks))
	}
	shot := filepath.Join(artifactDir(t), "report.png")
	runChromium(t, bin, "--screenshot="+shot, "--window-size=1280,2000", "--hide-scrollbars", "file://"+page)
	st, err := os.Stat(shot)
	if err != nil || st.Size() < 10_000 {
		t.Fatalf("screenshot %s: %v (size %v)", shot, err, st)
	}
	t.Logf("screenshot: %s", shot)

	// A long run in progress with a wide graph: a second screenshot to look at,
	// taken only when the artifacts are kept.
	if os.Getenv("AGENTLOOP_ARTIFACTS") == "" {
		return
	}
	b.Reset()
	if err := HTML(&b, longRun()); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(filepath.Dir(page), "long.html")
	if err := os.WriteFile(long, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	runChromium(t, bin, "--screenshot="+filepath.Join(artifactDir(t), "report-long.png"), "--window-size=1280,2600", "--hide-scrollbars", "file://"+long)
}
