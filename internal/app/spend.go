package app

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/ledger"
)

// WriteSpend writes the spend book to w as `agentloop spend` shows it, in
// format: text (the periods, days, task graphs, runs, caps, what is held and
// the accounts at their usage limit), json or csv ([spendCSV]).
func WriteSpend(w io.Writer, format string, bk Book) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Ledger string `json:"ledger"`
			ledger.Report
		}{bk.Where, bk.Report})
	case "csv":
		return spendCSV(w, bk.Report)
	}
	return spendText(w, bk.Where, bk.NotKept, bk.Report)
}

// usd says an amount of money: to the cent from a dollar up, else to a
// hundredth of a cent (an iteration's cost).
func usd(f float64) string {
	if f >= 1 || f == 0 {
		return budget.CostUSD.Show(f, 0.01)
	}
	return budget.CostUSD.Show(f, 0.0001)
}

// maxDaysShown is how many days the text of spend shows, the latest.
const maxDaysShown = 14

func spendText(w io.Writer, path, notKept string, r ledger.Report) error {
	fmt.Fprintf(w, "Spend ledger: %s\n", path)
	if notKept != "" {
		fmt.Fprintln(w, notKept)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nPERIOD\tPROVIDER\tACCOUNT\tMODEL\tSPENT\tESTIMATED\tTOKENS\tITERATIONS")
	for _, p := range r.Periods {
		label := p.Period.Word() + " (" + p.Name + ")"
		for _, k := range p.Keys {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", label, dash(k.Provider), dash(k.Account), dash(k.Model),
				usd(k.USD), usd(k.Estimated), budget.Tokens.Show(float64(k.Tokens), 0), k.Iterations)
		}
		fmt.Fprintf(tw, "%s\ttotal\t\t\t%s\t%s\t%s\t%d\n", label, usd(p.Total.USD), usd(p.Total.Estimated), budget.Tokens.Show(float64(p.Total.Tokens), 0), p.Total.Iterations)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Days) > 0 {
		fmt.Fprintln(w, "\nBy day:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  DAY\tSPENT\tESTIMATED\tTOKENS\tITERATIONS")
		for i, d := range r.Days {
			if i == maxDaysShown {
				fmt.Fprintf(tw, "  (%d earlier %s: --format csv or json)\n", len(r.Days)-i, pluralize(len(r.Days)-i, "day"))
				break
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\n", d.Name, usd(d.Total.USD), usd(d.Total.Estimated), budget.Tokens.Show(float64(d.Total.Tokens), 0), d.Total.Iterations)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(r.Periods) > 0 && len(r.Periods[0].Graphs) > 0 {
		fmt.Fprintln(w, "\nToday by task graph:")
		for _, g := range r.Periods[0].Graphs {
			fmt.Fprintf(w, "  %s: %s in %d %s\n", g.Graph, usd(g.USD), g.Iterations, pluralize(g.Iterations, "iteration"))
		}
	}
	if len(r.Periods) > 0 && len(r.Periods[0].Runs) > 0 {
		fmt.Fprintln(w, "\nToday by run:")
		for _, run := range r.Periods[0].Runs {
			fmt.Fprintf(w, "  %s: %s in %d %s\n", run.Run, usd(run.USD), run.Iterations, pluralize(run.Iterations, "iteration"))
		}
	}
	fmt.Fprintln(w, "\nCaps:")
	if len(r.Caps) == 0 {
		fmt.Fprintln(w, "  none (budgets.caps in your configuration, or --daily-cap on a run)")
	}
	for _, c := range r.Caps {
		fmt.Fprintf(w, "  %s (%s, %s): %s\n", c.Name, c.Covers(), c.Period.Word(), capLine(c))
	}
	if len(r.Held) > 0 {
		fmt.Fprintln(w, "\nHeld by iterations running now:")
		for _, h := range r.Held {
			fmt.Fprintf(w, "  %s: %s for %s since %s (pid %d)\n", dash(h.Run), usd(h.USD), h.Key.Provider, h.At.Local().Format("15:04:05"), h.Owner.PID)
		}
	}
	if len(r.Windows) > 0 {
		fmt.Fprintln(w, "\nAt their usage limit (every loop on them waits for the reset):")
		for _, win := range r.Windows {
			fmt.Fprintf(w, "  %s %s until %s: %s\n", win.Key.Provider, win.Key.Account, win.Until.Local().Format(time.DateTime), win.Reason)
		}
	}
	return nil
}

// capLine says where a cap stands: "$0.17 spent, $0.05 held, of $0.20: $0.00
// left — stopped".
func capLine(c ledger.CapReport) string {
	var parts []string
	if c.MaxCostUSD > 0 || c.SoftCostUSD > 0 {
		limit := c.MaxCostUSD
		if c.SoftCostUSD > 0 {
			limit = c.SoftCostUSD
		}
		money := func(f float64) string { return budget.CostUSD.Show(f, limit) }
		s := fmt.Sprintf("%s spent, %s held", money(c.Spent.USD), money(c.HeldUSD))
		if c.Spent.Estimated > 0 {
			s += fmt.Sprintf(" (%s of it estimated)", money(c.Spent.Estimated))
		}
		if c.SoftCostUSD > 0 {
			s += ", soft limit " + money(c.SoftCostUSD)
		}
		if c.MaxCostUSD > 0 {
			s += fmt.Sprintf(", limit %s, %s left", money(c.MaxCostUSD), money(c.LeftUSD))
		}
		parts = append(parts, s)
	}
	if c.MaxTokens > 0 || c.SoftTokens > 0 {
		show := func(n int64) string { return budget.Tokens.Show(float64(n), 0) }
		s := fmt.Sprintf("%s tokens spent, %s held", show(c.Spent.Tokens), show(c.HeldTokens))
		if c.SoftTokens > 0 {
			s += ", soft limit " + show(c.SoftTokens)
		}
		if c.MaxTokens > 0 {
			s += fmt.Sprintf(", limit %s, %s left", show(c.MaxTokens), show(c.LeftTokens))
		}
		parts = append(parts, s)
	}
	line := strings.Join(parts, "; ")
	switch {
	case c.State == "stopped":
		line += " — stopped: new iterations are refused"
	case c.State == "parked":
		line += " — at its soft limit: new iterations wait; go on with: agentloop budget approve " + c.Name
	case c.Approved:
		line += " — soft limit approved " + c.Period.Word()
	}
	return line
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// spendCSV writes the report as CSV: a row per period, provider, account and
// model (every day the ledger holds, then this week and this month), then a
// row per task graph in each period (this day, week and month), its graph
// column set and its key columns empty. A graph's spend is in the key rows
// too: sum the rows without a graph for a total.
func spendCSV(w io.Writer, r ledger.Report) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"period", "period_name", "provider", "account", "model", "cost_usd", "estimated_usd", "tokens", "iterations", "graph"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	row := func(p ledger.Period, name, graph string, k budget.Key, s ledger.Sum) {
		_ = cw.Write([]string{string(p), name, k.Provider, k.Account, k.Model, f(s.USD), f(s.Estimated), strconv.FormatInt(s.Tokens, 10), strconv.Itoa(s.Iterations), graph})
	}
	for _, p := range r.Periods {
		if p.Period == ledger.Day {
			// Every day the ledger holds, the latest (today's) first.
			for _, d := range r.Days {
				for _, k := range d.Keys {
					row(ledger.Day, d.Name, "", k.Key, k.Sum)
				}
			}
			continue
		}
		for _, k := range p.Keys {
			row(p.Period, p.Name, "", k.Key, k.Sum)
		}
	}
	for _, p := range r.Periods {
		for _, g := range p.Graphs {
			row(p.Period, p.Name, g.Graph, budget.Key{}, g.Sum)
		}
	}
	cw.Flush()
	return cw.Error()
}
