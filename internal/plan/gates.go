package plan

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/redact"
	"github.com/agentloop/agentloop/internal/state"
)

// GateSpec is one configured gate, resolved for running.
type GateSpec struct {
	Name             string
	Argv             []string // a shell string is ["sh", "-c", s]
	Command          string   // as the user wrote it, for reports
	Dir              string   // relative to the work tree; "" for its root
	Env              []string // extra KEY=VALUE
	Timeout          time.Duration
	Required         bool
	Format           string // parser name, or "auto"
	TolerateBaseline bool
	MaxFeedback      int // this gate's share of the feedback, in runes (0: shared); for the decider, which writes the feedback
	// Rerun is what the flaky check runs again: gate.RerunFailed ("" too),
	// gate.RerunWhole or gate.RerunOff.
	Rerun string
}

// ProcGates runs gates as processes and judges their output with the gate parsers.
// It writes no feedback: the decider renders the results it is given.
type ProcGates struct {
	Specs     []GateSpec
	Env       []string // the base environment (nil: this process's)
	Grace     time.Duration
	HeadBytes int // of each gate log kept from the start
	TailBytes int // of each gate log kept from the end
	// Sandbox, when set, runs every gate inside it.
	Sandbox agent.Sandbox
	// Redact holds the secrets to redact from the gates' output beyond their
	// own environment's (nil: those alone).
	Redact *redact.Redactor

	mu sync.Mutex
	// repeats holds, per work tree and gate, the failures the gate's last
	// flaky check saw fail twice ([gate.Repeats]).
	repeats map[string]gate.Repeats
	// took holds how long each gate's last whole run took, by name.
	took map[string]time.Duration
}

// usually is how long the gate took when it last ran whole: in this runner,
// else in the baseline base.
func (g *ProcGates) usually(name string, base *evidence.GateResult) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	if d, ok := g.took[name]; ok {
		return d
	}
	if base != nil {
		return base.Duration
	}
	return 0
}

func (g *ProcGates) tookThisLong(name string, d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.took == nil {
		g.took = map[string]time.Duration{}
	}
	g.took[name] = d
}

// lastRepeats returns the failures the gate's last flaky check in workDir
// confirmed, and keeps next in their place.
func (g *ProcGates) lastRepeats(workDir, name string, next gate.Repeats) gate.Repeats {
	g.mu.Lock()
	defer g.mu.Unlock()
	k := workDir + "\x00" + name
	prev := g.repeats[k]
	if g.repeats == nil {
		g.repeats = map[string]gate.Repeats{}
	}
	g.repeats[k] = next
	return prev
}

// Count implements [loop.GateRunner].
func (g *ProcGates) Count() int { return len(g.Specs) }

// RunGates implements [loop.GateRunner]: each gate runs in its own process group with
// its timeout, its output goes to logDir/NAME.log (bounded) and through the
// parser as it streams, so memory stays flat whatever it prints. A required
// gate that failed with test failures beyond the baseline runs its failed
// tests once more, by name (logDir/NAME.rerun.log, [ProcGates.flakyCheck]):
// failures that do not repeat are flaky, not counted.
func (g *ProcGates) RunGates(ctx context.Context, workDir, logDir string, baseline []evidence.GateResult) ([]evidence.GateResult, error) {
	var out []evidence.GateResult
	for _, s := range g.Specs {
		if err := ctx.Err(); err != nil {
			return out, context.Cause(ctx)
		}
		if started, ok := loop.GateStart(ctx); ok {
			started(s.Name, g.usually(s.Name, find(baseline, s.Name)))
		}
		res, err := g.runOne(ctx, s, workDir, logDir, safeName(s.Name)+".log", find(baseline, s.Name))
		if err != nil {
			return out, err
		}
		if res.TimedOut == 0 && !res.Infra {
			g.tookThisLong(s.Name, res.Duration)
		}
		if gate.ShouldRerun(res) {
			if res, err = g.flakyCheck(ctx, s, workDir, logDir, find(baseline, s.Name), res); err != nil {
				return out, err
			}
		} else {
			g.lastRepeats(workDir, s.Name, nil) // a pass, a broken build: what follows is checked afresh
		}
		out = append(out, g.keepFailures(s, workDir, logDir, res))
	}
	return out, nil
}

// keepFailures writes the gate's failures file beside its log,
// logDir/NAME.failures.txt: every failure with its whole message
// ([gate.FailureList]), redacted as the gate's output is, so that the agent
// can read what the feedback, capped, only counts. The result names it in
// FailuresPath, relative to the work tree when it is inside (the agent
// works there; the sandbox leaves agentloop's state folder readable).
// A list that cannot be written (a full disk) is an output problem of the
// gate, said, not a reason to stop the run: the feedback then names none.
func (g *ProcGates) keepFailures(s GateSpec, workDir, logDir string, res evidence.GateResult) evidence.GateResult {
	text := gate.FailureList(res)
	if text == "" {
		return res
	}
	path := filepath.Join(logDir, safeName(s.Name)+".failures.txt")
	text = g.Redact.With(baseEnv(g.Env), s.Env).String(text)
	if err := state.WriteFileAtomic(path, []byte(text), state.FilePerm); err != nil {
		res.ParseErrors = append(res.ParseErrors, fmt.Sprintf("the list of its failures could not be written: %v", err))
		return res
	}
	res.FailuresPath = path
	if rel, err := filepath.Rel(workDir, path); err == nil && filepath.IsLocal(rel) {
		res.FailuresPath = rel
	}
	return res
}

// flakyCheck runs again what the gate's rerun mode says, to tell a flaky test
// (failed, then passed) from a real failure; a flaky test is not worth an
// agent's run. failed (the default): only the failed tests, with the
// runner's own selector ([gate.PlanRerun]); a command agentloop cannot
// rewrite runs nothing again and its failures count, which RerunNote says.
// whole: the whole command, whose verdict then stands ([gate.Rerun]). off:
// nothing. In both, a failure that fails as it did in the gate's previous
// run, whose flaky check ran it again, is not run again ([gate.Repeats]):
// the gate runs nothing more when every failure is one.
func (g *ProcGates) flakyCheck(ctx context.Context, s GateSpec, workDir, logDir string, base *evidence.GateResult, res evidence.GateResult) (evidence.GateResult, error) {
	mode := cmp.Or(s.Rerun, gate.RerunFailed)
	if mode == gate.RerunOff {
		res.RerunNote = "not run again (rerun: off): every failure counts"
		return res, nil
	}
	next := gate.Repeats{}
	repeats, fresh := g.lastRepeats(workDir, s.Name, next).Split(res.Findings)
	next.Add(repeats...)
	if len(fresh) == 0 {
		res.RerunNote = gate.RepeatNote(repeats) + ": they count"
		return res, nil
	}
	out, err := g.rerun(ctx, s, mode, workDir, logDir, base, res, fresh, next)
	if len(repeats) > 0 {
		out.RerunNote += "; " + gate.RepeatNote(repeats)
	}
	return out, err
}

// rerun runs the gate's fresh failures again as mode says and records in
// next those that failed twice.
func (g *ProcGates) rerun(ctx context.Context, s GateSpec, mode, workDir, logDir string, base *evidence.GateResult, res evidence.GateResult, fresh []evidence.Finding, next gate.Repeats) (evidence.GateResult, error) {
	logName := safeName(s.Name) + ".rerun.log"
	switch mode {
	case gate.RerunWhole:
		again, err := g.runOne(ctx, s, workDir, logDir, logName, base)
		if err != nil || again.Infra {
			if err == nil {
				res.RerunNote = "ran the whole command again, but it could not run: " + again.InfraReason + "; the failures count"
			}
			return res, err
		}
		out := gate.Rerun(res, again)
		next.Add(gate.FailedAgain(fresh, again)...)
		out.Duration, out.RerunDuration, out.RerunLog = res.Duration, again.Duration, again.LogPath
		out.RerunNote = fmt.Sprintf("ran the whole command again: %d failed again, %d passed (flaky)", len(out.Findings), len(out.Flaky)-len(res.Flaky))
		return out, nil
	}
	plan, err := gate.PlanRerun(s.Argv, fresh)
	if err != nil {
		res.RerunNote = "not run again: " + err.Error() + "; the failures count (rerun: whole runs the whole command again)"
		return res, nil
	}
	// What is shown of it (the result's command, its note) is redacted: it is
	// the gate's own command line, credentials written in it included.
	plan.Command = g.Redact.String(plan.Command)
	spec := s
	spec.Argv, spec.Command = plan.Argv, plan.Command
	again, err := g.runOne(ctx, spec, workDir, logDir, logName, base)
	if err != nil {
		return res, err
	}
	if !again.Infra {
		next.Add(gate.FailedAgain(plan.Selected, again)...)
	}
	return gate.RerunSelected(gateOf(s), res, again, plan), nil
}

func gateOf(s GateSpec) gate.Gate {
	return gate.Gate{Name: s.Name, Command: s.Command, Required: s.Required, TolerateBaseline: s.TolerateBaseline, Format: s.Format}
}

func (g *ProcGates) runOne(ctx context.Context, s GateSpec, workDir, logDir, logName string, base *evidence.GateResult) (evidence.GateResult, error) {
	spec := gateOf(s)
	logPath := filepath.Join(logDir, logName)
	log, err := proc.NewLog(logPath, orInt(g.HeadBytes, 1<<20), orInt(g.TailBytes, 1<<20))
	if err != nil {
		return evidence.GateResult{}, fmt.Errorf("gate %s: %w", s.Name, err)
	}
	pr, pw := io.Pipe()
	type parsed struct {
		rep gate.Report
		err error
	}
	done := make(chan parsed, 1)
	go func() {
		rep, err := gate.Parse(pr, gate.Options{Format: cmp.Or(s.Format, "auto"), WorkDir: workDir})
		_, _ = io.Copy(io.Discard, pr) // a parser that stops early must not block the gate
		done <- parsed{rep, err}
	}()
	w := io.MultiWriter(log, pw)
	env := g.Env
	if len(s.Env) > 0 {
		env = append(append([]string(nil), baseEnv(env)...), s.Env...)
	}
	ps := proc.Spec{
		Argv: s.Argv, Dir: filepath.Join(workDir, s.Dir), Env: env,
		Stdout: w, Stderr: w, Timeout: s.Timeout, Grace: g.Grace, Redact: g.Redact,
	}
	if g.Sandbox != nil {
		wrapped, _, release, err := g.Sandbox.Wrap(ctx, ps)
		if err != nil {
			_ = pw.Close()
			<-done
			_ = log.Close()
			return evidence.GateResult{}, fmt.Errorf("gate %s: %w", s.Name, err)
		}
		defer release()
		ps = wrapped
	}
	res, runErr := proc.Run(ctx, ps)
	_ = pw.Close()
	p := <-done
	_ = log.Close()
	p.rep = redactReport(g.Redact.With(baseEnv(g.Env), s.Env), p.rep)
	var judged evidence.GateResult
	switch {
	case runErr != nil:
		judged = gate.NotStarted(spec, startReason(runErr))
	case res.Canceled:
		return evidence.GateResult{}, context.Cause(ctx)
	case res.TimedOut:
		rep := p.rep
		rep.Tail = string(log.Tail(4096))
		judged = gate.TimedOut(spec, s.Timeout, rep, base)
	case gate.ShellCannotStart(res.ExitCode):
		judged = gate.NotStarted(spec, shellReason(res.ExitCode, string(log.Tail(2048))))
		judged.ExitCode = res.ExitCode
	case p.err != nil && p.rep.Format == "":
		judged = gate.Infra(spec, "its output cannot be read: "+p.err.Error()) // an unknown format
	case p.err != nil && !errors.Is(p.err, io.ErrClosedPipe):
		rep := p.rep
		rep.Tail = string(log.Tail(4096))
		rep.Problems = append(rep.Problems, p.err.Error())
		judged = gate.Judge(spec, res.ExitCode, rep, base)
	default:
		judged = gate.Judge(spec, res.ExitCode, p.rep, base)
	}
	judged.Duration = res.Duration
	judged.LogPath = logPath
	if judged.Tail == "" {
		judged.Tail = string(log.Tail(2048))
	}
	return judged, nil
}

// redactReport returns rep with the secrets of its texts replaced. The
// gate's output was redacted as it streamed, but a parser decodes what the
// output escaped (go test -json writes & as \u0026, a quote as \"): a secret
// the stream's redaction could not see escaped comes out whole. Judged from
// the redacted report, the result never holds it, nor its keys (compared
// with the baseline's, redacted alike): the failures file, the feedback, the
// state and the report all get what is redacted here, once.
func redactReport(r *redact.Redactor, rep gate.Report) gate.Report {
	rep.Findings = slices.Clone(rep.Findings)
	for i := range rep.Findings {
		f := &rep.Findings[i]
		for _, s := range []*string{&f.ID, &f.File, &f.Message, &f.Key, &f.Unit, &f.Test} {
			*s = r.String(*s)
		}
	}
	rep.Tail = r.String(rep.Tail)
	rep.Problems = slices.Clone(rep.Problems)
	for i, p := range rep.Problems {
		rep.Problems[i] = r.String(p)
	}
	return rep
}

// startReason says why a program could not start, in a person's words.
func startReason(err error) string {
	var se *proc.StartError
	name := ""
	if errors.As(err, &se) && len(se.Argv) > 0 {
		name = se.Argv[0]
	}
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("command not found: %s", name)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("not executable: %s", name)
	}
	return err.Error()
}

// shellReason says why a command ended with a shell's exit 126 or 127, with the
// shell's own last line ("sh: 1: gotest: not found").
func shellReason(exitCode int, tail string) string {
	what := "command not found"
	if exitCode == 126 {
		what = "command found but not executable"
	}
	if last := lastLine(tail); last != "" {
		return fmt.Sprintf("exit %d, %s: %s", exitCode, what, last)
	}
	return fmt.Sprintf("exit %d, %s", exitCode, what)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func find(rs []evidence.GateResult, name string) *evidence.GateResult {
	for i := range rs {
		if rs[i].Name == name {
			return &rs[i]
		}
	}
	return nil
}

var unsafeChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })

func safeName(s string) string {
	s = strings.Trim(unsafeChars().ReplaceAllString(s, "-"), "-.")
	if s == "" {
		return "gate"
	}
	return s
}

func baseEnv(env []string) []string {
	if env == nil {
		return os.Environ()
	}
	return env
}

func orInt(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
