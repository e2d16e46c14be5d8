// Command report-bench measures `agentloop report` on a long run: it writes a
// run of many agent attempts into a state folder (the state file, the run
// folder's history.jsonl and events.jsonl, an escalation report per segment),
// as the loop writes them, then times the real binary writing each format of
// its report, against the floor of reading the same files (cat). The target:
// a 10,000-iteration run's HTML report in under 2 s.
//
//	go run ./bench/report [-iterations 10000] [-segments 5] [-rounds 5] [-keep DIR]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

func main() {
	iterations := flag.Int("iterations", 10000, "agent attempts recorded in the run")
	segments := flag.Int("segments", 5, "segments (each ends in an escalation answered with guidance)")
	rounds := flag.Int("rounds", 5, "times each command runs (the median is reported)")
	keep := flag.String("keep", "", "write the run into this folder and keep it (default: a temp folder, removed)")
	flag.Parse()
	if err := run(*iterations, *segments, *rounds, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "report-bench:", err)
		os.Exit(1)
	}
}

func run(iterations, segments, rounds int, keep string) error {
	dir := keep
	if dir == "" {
		d, err := os.MkdirTemp("", "report-bench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	bin := filepath.Join(dir, "agentloop")
	build := exec.Command("go", "build", "-o", bin, "./cmd/agentloop")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build agentloop: %w", err)
	}
	store := state.Store{Root: filepath.Join(dir, ".agentloop")}
	st, err := write(store, iterations, segments)
	if err != nil {
		return err
	}
	runDir := store.RunDir(st.Name, st.RunID)
	fmt.Printf("run: %d attempts (%d recorded, %d cut short), %d segments, %d hand-offs\n",
		st.Attempts, len(st.History), len(st.Interrupted), st.Segment, len(st.Handoffs))
	for _, f := range []string{state.HistoryFile, "events.jsonl"} {
		if fi, err := os.Stat(filepath.Join(runDir, f)); err == nil {
			fmt.Printf("  %s: %.1f MB\n", f, float64(fi.Size())/1e6)
		}
	}
	floor, err := median(rounds, func() error {
		return exec.Command("sh", "-c", `cat "$1"/state/*.json "$2"/history.jsonl "$2"/events.jsonl "$2"/escalation-*.md > /dev/null`,
			"sh", store.Root, runDir).Run()
	})
	if err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	fmt.Printf("floor (cat of the files read): %s\n", floor.Round(time.Millisecond))
	for _, format := range []string{"html", "md", "json"} {
		out := filepath.Join(dir, "report."+format)
		d, err := median(rounds, func() error {
			cmd := exec.Command(bin, "report", st.Name, "--state-dir", store.Root, "-o", out)
			cmd.Stderr = os.Stderr
			return cmd.Run()
		})
		if err != nil {
			return fmt.Errorf("report -o %s: %w", filepath.Base(out), err)
		}
		fi, _ := os.Stat(out)
		fmt.Printf("report -o report.%s: %s (%.1f MB), %.0f× the floor\n", format, d.Round(time.Millisecond),
			float64(fi.Size())/1e6, float64(d)/float64(max(floor, time.Microsecond)))
	}
	status, err := median(rounds, func() error {
		return exec.Command(bin, "status", "--state-dir", store.Root).Run()
	})
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	fmt.Printf("status: %s\n", status.Round(time.Millisecond))
	return nil
}

// median runs f rounds times and returns the median of its times.
func median(rounds int, f func() error) (time.Duration, error) {
	var ds []time.Duration
	for range max(rounds, 1) {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// write records a run of n attempts in segments segments: every 97th attempt
// is cut short by a Ctrl-C and the run resumed, each segment but the last ends
// in an escalation answered with guidance, and the run ends escalated.
func write(store state.Store, n, segments int) (*state.State, error) {
	st := &state.State{Version: state.StateVersion, Name: "long", RunID: "20261101-090000-beef", Procedure: "build",
		Status: state.StatusRunning, MaxIterations: max(n/max(segments, 1), 1), FailureThreshold: 1 << 20, StartedAt: t0,
		Segment: 1, BaselineDone: true}
	runDir := store.RunDir(st.Name, st.RunID)
	if err := state.EnsureDir(runDir); err != nil {
		return nil, err
	}
	events, err := state.OpenEvents(filepath.Join(runDir, "events.jsonl"))
	if err != nil {
		return nil, err
	}
	defer events.Close()
	at := t0
	emit := func(iteration, seq int, data state.EventData) error {
		return events.Append(state.Event{Time: at, Iteration: iteration, Seq: seq, Segment: st.Segment, Data: data})
	}
	handoff := func(h state.Handoff) error {
		h.At, h.By = at, "dev@build-host"
		return emit(st.Iteration, 0, state.AddHandoff(st, h))
	}
	if err := handoff(state.Handoff{Kind: state.HandoffStart}); err != nil {
		return nil, err
	}
	perSegment := st.MaxIterations
	for seq := 1; seq <= n; seq++ {
		st.Attempts = seq
		it := st.Iteration + 1
		dur := time.Duration(20+seq*7919%90) * time.Second
		if err := emit(it, seq, state.IterationStarted{MaxIterations: st.MaxIterations, Strategy: "refine"}); err != nil {
			return nil, err
		}
		ref := fmt.Sprintf("refs/agentloop/%s/%s/iter-%d", st.Name, st.RunID, seq)
		if seq%97 == 0 {
			st.Interrupted = append(st.Interrupted, state.Interrupted{Seq: seq, Segment: st.Segment, Iteration: it, StartedAt: at,
				Duration: state.MillisOf(dur / 3), Usage: usage(seq), Start: ref + "-start", Cut: ref + "-cut", Reason: "interrupted"})
			at = at.Add(dur / 3)
			if err := emit(it, seq, state.RunFinished{Status: state.StatusInterrupted, Reason: "interrupted", Iterations: st.TotalIterations}); err != nil {
				return nil, err
			}
			at = at.Add(time.Minute)
			if err := handoff(state.Handoff{Kind: state.HandoffResume}); err != nil {
				return nil, err
			}
			continue
		}
		rec := record(it, seq, st.Segment, at, dur, ref)
		st.History = append(st.History, rec)
		st.Iteration, st.TotalIterations = it, st.TotalIterations+1
		st.Spend.Usage = st.Spend.Usage.Add(rec.Usage)
		st.Spend.Wall += rec.Duration
		st.LastIterationAt = at.Add(dur)
		st.LastDecision = rec.Decision
		if st.Best == nil || rec.Quality > st.Best.Quality {
			st.Best = &state.Checkpoint{Iteration: it, Seq: seq, Ref: ref, Quality: rec.Quality}
		}
		at = at.Add(dur)
		if err := emit(it, seq, state.IterationFinished{MaxIterations: st.MaxIterations, Duration: rec.Duration, Action: state.Action(rec.Decision),
			Strategy: rec.Strategy, Message: rec.Summary, Quality: rec.Quality, Triggers: rec.Triggers, CostUSD: rec.Usage.CostUSD, CostKnown: true,
			Tokens: rec.Usage.TotalTokens(), TokensKnown: true}); err != nil {
			return nil, err
		}
		if it < perSegment || seq == n {
			continue
		}
		// The segment ends in an escalation, answered with guidance.
		st.History[len(st.History)-1].Decision = string(state.ActionEscalate)
		md, _ := state.EscalationFiles(runDir, st.Segment)
		if err := os.WriteFile(md, []byte(escalation(st.Segment, it)), state.FilePerm); err != nil {
			return nil, err
		}
		if err := emit(it, seq, state.Escalated{Reason: "stuck: the same 2 tests fail"}); err != nil {
			return nil, err
		}
		if st.Segment < segments {
			at = at.Add(time.Hour)
			h := state.ApplyGuidance(st, state.Guidance{Text: fmt.Sprintf("answer %d: the tests of segment %d are right; fix Wrap", st.Segment, st.Segment), At: at, By: "dev@build-host"})
			if err := emit(0, 0, h); err != nil {
				return nil, err
			}
		}
	}
	md, _ := state.EscalationFiles(runDir, st.Segment)
	if err := os.WriteFile(md, []byte(escalation(st.Segment, st.Iteration)), state.FilePerm); err != nil {
		return nil, err
	}
	st.Status, st.Reason = state.StatusEscalated, "stuck: the same 2 tests fail"
	st.Sessions = []state.Session{{StartedAt: t0, EndedAt: at, Iterations: st.TotalIterations, Status: st.Status, Reason: st.Reason}}
	if err := store.Save(st); err != nil {
		return nil, err
	}
	return st, nil
}

func usage(seq int) evidence.Usage {
	in := int64(10000 + seq%5000)
	return evidence.Usage{InputTokens: in, OutputTokens: in / 4, CacheReadTokens: in * 3, TokensKnown: true,
		CostUSD: float64(in) / 25000, CostKnown: true, Model: "claude-sonnet-4-5"}
}

func record(it, seq, segment int, at time.Time, dur time.Duration, ref string) state.Record {
	fails := seq % 6
	var failing []string
	for f := range fails {
		failing = append(failing, fmt.Sprintf("go:textkit.TestCase%d", f))
	}
	keys := slices.Clone(failing)
	return state.Record{N: it, Seq: seq, Segment: segment, Attempt: 1 + seq%3, StartedAt: at, Duration: state.MillisOf(dur),
		Succeeded: fails == 0, Usage: usage(seq), Failing: failing, Fingerprint: fmt.Sprintf("%016x", seq*2654435761),
		DiffHash: fmt.Sprintf("%040x", seq), TreeHash: fmt.Sprintf("%040x", seq*31), DiffLines: 10 + seq%200,
		Gates: []state.GateSummary{
			{Name: "tests", Required: true, Passed: fails == 0, ExitCode: min(fails, 1), Failures: fails, Keys: keys},
			{Name: "lint", Passed: seq%5 != 0, ExitCode: min(seq%5, 0)},
			{Name: "vet", Required: true, Passed: true},
		},
		Quality: 0.2 + 0.7*float64(seq%100)/100, Decision: "refine", Strategy: "refine", Triggers: []string{"validation_failure"},
		Summary: strings.Repeat("changed Wrap and its tests; ", 1+seq%3), Checkpoint: ref}
}

func escalation(segment, it int) string {
	return fmt.Sprintf("# Escalation: textkit\n\n**Why the loop stopped:** stuck after iteration %d of segment %d\n\n## Question\n\n**What does the agent miss about Wrap?**\n\n%s",
		it, segment, strings.Repeat("| 1 | changed 12 lines | 2 failing | — | refine | 2 | 0.60 | $0.41 |\n", 40))
}
