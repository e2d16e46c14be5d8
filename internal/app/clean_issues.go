package app

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/runname"
	"github.com/agentloop/agentloop/internal/state"
)

// issueRecord is an issue record of the state folder ([issueRecordPath]):
// rec, or why it cannot be read (err).
type issueRecord struct {
	rec *state.Issue
	err error
}

// issueRecords are the issue records the state folder keeps apart from a
// run's state (a fleet's runs), by run name.
func issueRecords(stateDir string) map[string]issueRecord {
	entries, _ := os.ReadDir(filepath.Join(stateDir, "issues")) // none yet: none
	out := map[string]issueRecord{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !e.Type().IsRegular() || runname.Check(name) != nil {
			continue
		}
		rec, err := readIssueRecord(issueRecordPath(stateDir, name))
		out[name] = issueRecord{rec, err}
	}
	return out
}

// ownsPR is why a run whose issue's pull request is open (rec) is kept.
func ownsPR(rec *state.Issue) string {
	return fmt.Sprintf("its issue's pull request %s is open: agentloop owns it until it is merged or closed", rec.PRURL)
}

// planIssues weighs the issue records of the state folder as their runs
// are weighed (fate): a record goes with its run, when its run is gone from
// the engine's server, and once its issue is done (its pull request merged
// or closed, or agentloop's work on it stopped), but never while its run is
// live or its pull request open. A record whose run the engine was not asked
// about keeps its run whole, as a marked run is kept ([CleanPlan.planMarked]):
// it may go on there.
func (p *CleanPlan) planIssues(o CleanOptions, fate map[string]runFate, records map[string]issueRecord) {
	for _, name := range slices.Sorted(maps.Keys(records)) {
		r, path := records[name], issueRecordPath(o.StateDir, name)
		item := CleanItem{Kind: "issue record", Name: p.rel(path), paths: []string{path}}
		f, known := fate[name]
		switch {
		case known && f == fateLive: // its run's item says why
			continue
		case r.err != nil:
			item.Note = fmt.Sprintf("left alone: %v", r.err)
			p.Keep = append(p.Keep, item)
			continue
		case prOpen(r.rec):
			item.Note = "the issue of run " + name + ", whose pull request is open"
			if !known { // what its run left here is not weighed without it
				fate[name] = fateLive
			}
			p.Keep = append(p.Keep, item)
			continue
		case r.rec.Ended == endedAborted:
			item.Note = "its issue is done: agentloop's work on its pull request was stopped"
		case r.rec.Ended != "":
			item.Note = fmt.Sprintf("its issue is done: its pull request was %s", r.rec.Ended)
		case !known && o.EngineAsked:
			item.Note = "no run of that name is left on the engine's server"
		case !known:
			fate[name] = fateLive
			p.Keep = append(p.Keep, CleanItem{Kind: "run", Name: name, Note: "an issue's run on Temporal (its issue record is here): whether it goes on there is not known here; 'agentloop clean --engine temporal' asks its server"})
			continue
		case f == fateKeep:
			item.Note = "the issue of run " + name + ", kept with it"
			p.Keep = append(p.Keep, item)
			continue
		default:
			item.Note = "the issue of run " + name + ", removed"
		}
		p.Remove = append(p.Remove, item)
	}
}
