// Command reruns measures the flaky check and the first prompt's feedback on
// real test suites with one injected bug each: for every project it times the
// raw suite (the gate's command alone, failing and then passing) against the
// gate as agentloop runs it (the command, the parser, and for a failing gate
// the flaky check: only the failed tests again, by name; and, in the same
// run, the whole command again, as before), and counts how many failing tests
// and causes the feedback under the default 500-character cap names.
//
//	go run ./bench/reruns -src DIR [-projects csv,gotestsum,click,ufo] [-rounds N]
//
// csv (the standard library's encoding/csv as a module) and gotestsum (from the
// Go module proxy) need only Go; click and ufo are checkouts in -src (see
// bench/reruns/README.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/proc"
)

func main() {
	src := flag.String("src", "", "folder holding the click and ufo checkouts")
	work := flag.String("work", "", "where the projects are copied (default: a temporary folder)")
	names := flag.String("projects", "csv,gotestsum,click,ufo", "projects to measure")
	rounds := flag.Int("rounds", 1, "measurements per project (medians are reported)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *src, *work, strings.Split(*names, ","), *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "reruns:", err)
		os.Exit(1)
	}
}

// row is one project's figures.
type row struct {
	project, runner              string
	rawFail, gateFail, wholeFail time.Duration
	rawPass, gatePass            time.Duration
	// the failing gate again on the same runner, its failures unchanged
	// (a stuck iteration), and the flaky check's command selecting no test
	repeatFail, floor time.Duration
	// the flaky check's own run against the gate's first run, in the same
	// gate: less at the mercy of a shared machine's load than the totals
	checkShare, wholeShare float64
	// the flaky check's command selecting no test against the raw failing
	// suite of the same round
	floorShare                      float64
	failing, accounted, causes, led int
	rerun, repeatNote               string
	// CPU time of each step (median; see childCPU)
	cpu      map[string]time.Duration
	feedback string
}

func run(ctx context.Context, src, work string, names []string, rounds int) error {
	if work == "" {
		dir, err := os.MkdirTemp("", "reruns-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	var rows []row
	for _, name := range names {
		p, ok := projects()[name]
		if !ok {
			return fmt.Errorf("unknown project %q", name)
		}
		dir := filepath.Join(work, name)
		if err := p.setup(ctx, src, dir); err != nil {
			return fmt.Errorf("%s: set up: %w", name, err)
		}
		r, err := measure(ctx, p, dir, filepath.Join(work, name+"-logs"), rounds)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(os.Stderr, "%s: done\n", name)
		rows = append(rows, r)
	}
	printTable(rows)
	return nil
}

func measure(ctx context.Context, p project, dir, logs string, rounds int) (row, error) {
	r := row{project: p.name, runner: p.runner}
	var rawF, gateF, wholeF, rawP, gateP, repeatF, floorF []time.Duration
	var checkS, wholeS, floorS []float64
	cpu := cpuSteps{}
	for i := range rounds {
		if err := p.edit(dir, p.bug); err != nil {
			return r, err
		}
		t0 := childCPU()
		rawLog := filepath.Join(logs, fmt.Sprint(i, "-raw-failed.log"))
		d, code, err := raw(ctx, p, dir, rawLog)
		cpu.add("rawFail", t0)
		if err != nil || code == 0 {
			return r, fmt.Errorf("the suite with the bug: exit %d, %v (its output: %s)", code, err, rawLog)
		}
		rawF = append(rawF, d)
		g := gates(p, gate.RerunFailed)
		t0 = childCPU()
		res, err := gateRun(ctx, g, dir, filepath.Join(logs, fmt.Sprint(i, "-failed")))
		if err != nil {
			return r, err
		}
		cpu.add("gateFail", t0)
		t0 = childCPU()
		again, err := gateRun(ctx, g, dir, filepath.Join(logs, fmt.Sprint(i, "-repeat")))
		if err != nil {
			return r, err
		}
		cpu.add("repeatFail", t0)
		repeatF = append(repeatF, again.Duration+again.RerunDuration)
		r.repeatNote = again.RerunNote
		plan, err := gate.PlanRerun([]string{"sh", "-c", p.gate}, res.Findings)
		if err != nil {
			return r, err
		}
		start, t0 := time.Now(), childCPU()
		if _, err := proc.Run(ctx, proc.Spec{Argv: []string{"sh", "-c", p.floor(plan.Command, p.gate, plan.Units)}, Dir: dir, Env: append(os.Environ(), p.env...), Timeout: 20 * time.Minute}); err != nil {
			return r, err
		}
		floorF = append(floorF, time.Since(start))
		cpu.add("floor", t0)
		floorS = append(floorS, floorF[i].Seconds()/rawF[i].Seconds())
		gateF = append(gateF, res.Duration+res.RerunDuration)
		checkS = append(checkS, res.RerunDuration.Seconds()/res.Duration.Seconds())
		r.rerun = res.RerunNote
		r.failing = len(res.Findings)
		r.feedback = gate.Render([]evidence.GateResult{res}, nil, gate.RenderOptions{})
		r.accounted = accounted(r.feedback)
		r.causes = gate.CauseCount(res.Findings)
		r.led = causesShown(r.feedback)
		t0 = childCPU()
		whole, err := gateRun(ctx, gates(p, gate.RerunWhole), dir, filepath.Join(logs, fmt.Sprint(i, "-whole")))
		if err != nil {
			return r, err
		}
		cpu.add("wholeFail", t0)
		wholeF = append(wholeF, whole.Duration+whole.RerunDuration)
		wholeS = append(wholeS, whole.RerunDuration.Seconds()/whole.Duration.Seconds())
		if err := p.edit(dir, p.fix); err != nil {
			return r, err
		}
		t0 = childCPU()
		rawLog = filepath.Join(logs, fmt.Sprint(i, "-raw-passed.log"))
		d, code, err = raw(ctx, p, dir, rawLog)
		cpu.add("rawPass", t0)
		if err != nil || code != 0 {
			return r, fmt.Errorf("the suite without the bug: exit %d, %v (its output: %s)", code, err, rawLog)
		}
		rawP = append(rawP, d)
		t0 = childCPU()
		pass, err := gateRun(ctx, gates(p, gate.RerunFailed), dir, filepath.Join(logs, fmt.Sprint(i, "-passed")))
		if err != nil {
			return r, err
		}
		cpu.add("gatePass", t0)
		if !pass.Passed {
			return r, fmt.Errorf("the gate without the bug failed: %s", gate.Render([]evidence.GateResult{pass}, nil, gate.RenderOptions{}))
		}
		gateP = append(gateP, pass.Duration+pass.RerunDuration)
		fmt.Fprintf(os.Stderr, "%s round %d: raw %v/%v, gate %v/%v, whole %v, repeated %v, floor %v (%.2f of raw); flaky check %.2f, whole %.2f of the first run; %s; repeated: %s\n",
			p.name, i+1, rawF[i], rawP[i], gateF[i], gateP[i], wholeF[i], repeatF[i], floorF[i], floorS[i], checkS[i], wholeS[i], res.RerunNote, again.RerunNote)
		fmt.Fprintf(os.Stderr, "%s round %d CPU: raw %v/%v, gate %v/%v, repeated %v, whole %v, floor %v\n", p.name, i+1,
			cpu["rawFail"][i], cpu["rawPass"][i], cpu["gateFail"][i], cpu["gatePass"][i], cpu["repeatFail"][i], cpu["wholeFail"][i], cpu["floor"][i])
		if i == 0 {
			fmt.Fprintf(os.Stderr, "%s first prompt's feedback (%d characters):\n%s\n", p.name, len([]rune(r.feedback)), r.feedback)
		}
	}
	r.rawFail, r.gateFail, r.wholeFail, r.rawPass, r.gatePass = median(rawF), median(gateF), median(wholeF), median(rawP), median(gateP)
	r.checkShare, r.wholeShare, r.floorShare = median(checkS), median(wholeS), median(floorS)
	r.repeatFail, r.floor = median(repeatF), median(floorF)
	r.cpu = map[string]time.Duration{}
	for k, v := range cpu {
		r.cpu[k] = median(v)
	}
	return r, nil
}

// cpuSteps are the CPU times of each step, one a round.
type cpuSteps map[string][]time.Duration

func (c cpuSteps) add(step string, since time.Duration) { c[step] = append(c[step], childCPU()-since) }

// raw runs the gate's command as a person would, its output kept in log
// (unparsed) for when the suite does not end as it should.
func raw(ctx context.Context, p project, dir, log string) (time.Duration, int, error) {
	if err := os.MkdirAll(filepath.Dir(log), 0o755); err != nil {
		return 0, 0, err
	}
	f, err := os.Create(log)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	start := time.Now()
	res, err := proc.Run(ctx, proc.Spec{Argv: []string{"sh", "-c", p.gate}, Dir: dir, Env: append(os.Environ(), p.env...), Stdout: f, Stderr: f, Timeout: 20 * time.Minute})
	return time.Since(start), res.ExitCode, err
}

// gates is the gate as a run configures it, in rerun mode.
func gates(p project, mode string) *plan.ProcGates {
	return &plan.ProcGates{Specs: []plan.GateSpec{{
		Name: "tests", Argv: []string{"sh", "-c", p.gate}, Command: p.gate, Env: p.env,
		Timeout: 20 * time.Minute, Required: true, Format: p.format, Rerun: mode,
	}}}
}

// gateRun runs the gate as agentloop does, flaky check included.
func gateRun(ctx context.Context, g *plan.ProcGates, dir, logs string) (evidence.GateResult, error) {
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return evidence.GateResult{}, err
	}
	res, err := g.RunGates(ctx, dir, logs, nil)
	if err != nil {
		return evidence.GateResult{}, err
	}
	if len(res) != 1 || res[0].Infra {
		return evidence.GateResult{}, fmt.Errorf("the gate did not run: %+v", res)
	}
	return res[0], nil
}

func median[T time.Duration | float64](ds []T) T {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func printTable(rows []row) {
	fmt.Println("| project (runner) | raw suite failing / passing | gate failing (ratio) | the same failures again (ratio) | whole rerun (ratio) | gate passing (ratio) | flaky check / first run: failed, whole | flaky check's command selecting no test (least a failing gate with a flaky check can take: 1 + floor/raw) | failing tests | named or counted in the first prompt | causes shown |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		ratio := func(a, b time.Duration) string {
			return fmt.Sprintf("%.1fs (**%.2f**)", a.Seconds(), a.Seconds()/b.Seconds())
		}
		fmt.Printf("| %s (%s) | %.1fs / %.1fs | %s | %s | %s | %s | %.2f, %.2f | %.1fs (**%.2f**) | %d | %d | %d of %d |\n", r.project, r.runner,
			r.rawFail.Seconds(), r.rawPass.Seconds(), ratio(r.gateFail, r.rawFail), ratio(r.repeatFail, r.rawFail), ratio(r.wholeFail, r.rawFail),
			ratio(r.gatePass, r.rawPass), r.checkShare, r.wholeShare, r.floor.Seconds(), 1+r.floorShare, r.failing, r.accounted, r.led, r.causes)
	}
	fmt.Println("\nCPU time (user and system) of the processes each step started:")
	fmt.Println("\n| project (runner) | raw suite failing | gate failing (ratio) | the same failures again (ratio) | whole rerun (ratio) | selecting no test (1 + floor/raw) | raw suite passing | gate passing (ratio) |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		c := r.cpu
		ratio := func(a, b time.Duration) string {
			return fmt.Sprintf("%.2fs (**%.2f**)", a.Seconds(), a.Seconds()/b.Seconds())
		}
		fmt.Printf("| %s (%s) | %.2fs | %s | %s | %s | %.2fs (**%.2f**) | %.2fs | %s |\n", r.project, r.runner, c["rawFail"].Seconds(),
			ratio(c["gateFail"], c["rawFail"]), ratio(c["repeatFail"], c["rawFail"]), ratio(c["wholeFail"], c["rawFail"]),
			c["floor"].Seconds(), 1+c["floor"].Seconds()/c["rawFail"].Seconds(), c["rawPass"].Seconds(), ratio(c["gatePass"], c["rawPass"]))
	}
	for _, r := range rows {
		fmt.Printf("\n%s: flaky check: %s\n\nthe same failures again: %s\n\nFirst prompt's feedback (%d characters):\n\n```text\n%s\n```\n",
			r.project, r.rerun, r.repeatNote, len([]rune(r.feedback)), r.feedback)
	}
}
