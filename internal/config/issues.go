package config

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Issues is the issues: section: how a run taken from a tracker issue
// (run --issue) is run and shown on the issue.
type Issues struct {
	// RequireSandbox refuses an issue's run whose agents do not run in the
	// sandbox (--sandbox, or sandbox: {agents: true}): an issue is text from
	// outside the repository.
	RequireSandbox bool
	// Labels are the labels agentloop moves on the issue.
	Labels IssueLabels
	// ProgressEvery is the least time between two edits of the issue's
	// progress comment but for a decision (0: the application's default).
	ProgressEvery time.Duration
	// Caps bound the continuations agentloop pushes on a pull request it
	// owns, for each class of failure, before it asks a person.
	Caps IssueCaps
	// App is the GitHub App agentloop acts as on the forge (issues: {app:
	// ...}, or AGENTLOOP_GITHUB_APP_*); none: the token gh finds.
	App GitHubApp
}

// GitHubApp names a GitHub App and the file of its private key: never the
// key itself, which is read from the file when the forge is opened.
type GitHubApp struct {
	// ID is the App's id, or its client id.
	ID string
	// InstallationID is the App's installation to act through (0: the
	// installation on the issues' repository).
	InstallationID int64
	// PrivateKeyFile is the path of the App's private key (PEM), relative to
	// the configuration file that names it.
	PrivateKeyFile string
}

// Set says whether any of the App's settings is given.
func (a GitHubApp) Set() bool { return a != GitHubApp{} }

// IssueCaps are how many continuations agentloop pushes on an issue's pull
// request for the same failing check (Check, each check by its name), for
// reviews asking for changes (Review) and for merge conflicts (Conflict),
// before it asks a person instead; 0 asks at once.
type IssueCaps struct {
	Check, Review, Conflict int
}

// DefaultIssueCaps are the caps when the configuration names none.
var DefaultIssueCaps = IssueCaps{Check: 3, Review: 3, Conflict: 2}

// IssueLabels are the labels that say where an issue's run stands: Queued
// (a person asks for a run), Running (a run claimed it), NeedsYou (it waits
// for a person) and Done (its pull request is open).
type IssueLabels struct {
	Queued, Running, NeedsYou, Done string
}

// DefaultIssueLabels are the labels when the configuration names none.
var DefaultIssueLabels = IssueLabels{Queued: "agentloop", Running: "agentloop:running", NeedsYou: "agentloop:needs-you", Done: "agentloop:done"}

// issues decodes the issues: section; a label not named keeps its default.
func (d *decoder) issues(n *yaml.Node, key string) Issues {
	is := Issues{Labels: DefaultIssueLabels, Caps: DefaultIssueCaps}
	label := func(dst *string) func(*yaml.Node, string) {
		return func(v *yaml.Node, k string) {
			if s := d.str(v, k); s != "" {
				*dst = s
			} else {
				d.fail(v, k, "a label needs a name")
			}
		}
	}
	d.fields(n, key, map[string]func(*yaml.Node, string){
		"require_sandbox": func(v *yaml.Node, k string) { is.RequireSandbox = d.boolean(v, k) },
		"progress_every":  func(v *yaml.Node, k string) { is.ProgressEvery = d.duration(v, k) },
		"caps": func(v *yaml.Node, k string) {
			d.fields(v, k, map[string]func(*yaml.Node, string){
				"check":    func(v *yaml.Node, k string) { is.Caps.Check = d.count(v, k) },
				"review":   func(v *yaml.Node, k string) { is.Caps.Review = d.count(v, k) },
				"conflict": func(v *yaml.Node, k string) { is.Caps.Conflict = d.count(v, k) },
			})
		},
		"app": func(v *yaml.Node, k string) {
			d.fields(v, k, map[string]func(*yaml.Node, string){
				"id":              func(v *yaml.Node, k string) { is.App.ID = d.str(v, k) },
				"installation_id": func(v *yaml.Node, k string) { is.App.InstallationID = d.integer(v, k) },
				"private_key_file": func(v *yaml.Node, k string) {
					if s := d.str(v, k); strings.Contains(s, "-----BEGIN") || strings.Contains(s, "\n") {
						// Never the key in configuration text; and never echoed.
						d.fail(v, k, "expected the path of the App's private key file, got what looks like a key: keep the key in a file only you can read and give its path")
						return
					}
					is.App.PrivateKeyFile = d.path(v, k)
				},
			})
		},
		"labels": func(v *yaml.Node, k string) {
			d.fields(v, k, map[string]func(*yaml.Node, string){
				"queued":    label(&is.Labels.Queued),
				"running":   label(&is.Labels.Running),
				"needs_you": label(&is.Labels.NeedsYou),
				"done":      label(&is.Labels.Done),
			})
		},
	})
	return is
}
