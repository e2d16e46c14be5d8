package app

import (
	"context"
	"fmt"
	"io"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/plan"
)

// doctorForge says which credential run --issue and serve would act with
// on the forge of the work tree's origin remote (GH_HOST's, else
// github.com's, when origin names none), opened as they open it, never
// with its secret: the GitHub App and its installation (its key file read
// to say it can be), GH_TOKEN or another of gh's variables, gh's login, or
// none and what to do; and whether git pushes the issue's branch with it.
func doctorForge(ctx context.Context, w io.Writer, p *plan.Plan, open OpenForge) {
	if open == nil {
		return
	}
	const remote = "origin"
	top, repo, err := issueClone(ctx, p.WorkDir, remote, "doctor")
	url := ""
	if err == nil {
		url, _ = gitx.RemoteURL(ctx, top, remote)
	}
	app := forgeApp(p)
	f, err := open(ctx, repo, app)
	where := "forge"
	if repo.Name != "" {
		where += " (" + repo.String() + ")"
	}
	if err != nil {
		fmt.Fprintf(w, "%s: no credential run --issue and serve can use: %v\n", where, err)
		return
	}
	if h, ok := f.(interface{ Host() string }); ok && repo.Name == "" {
		where += " " + h.Host()
	}
	ga, ok := f.(forge.GitAuth)
	if !ok {
		fmt.Fprintf(w, "%s: opened; git pushes with its own credentials\n", where)
		return
	}
	c := ga.DescribeGitCredential()
	line := where + ": " + c.Name
	if app.Set() {
		line += fmt.Sprintf(" (its key file %s is readable)", app.PrivateKeyFile)
	}
	switch {
	case !c.Held:
		line += "; git pushes the issue's branch with its own credentials (agentloop gives git no login of gh's; 'gh auth setup-git' does)"
	case url != "" && !(gitx.HTTPAuth{URL: c.URL}).Covers(url):
		line += fmt.Sprintf("; the %s remote (%s) is not an https URL under %s: git pushes the issue's branch there with its own credentials", remote, url, c.URL)
	default:
		line += fmt.Sprintf("; git pushes and fetches the issue's branch with it over https (under %s), given through git's environment only; it needs %s", c.URL, c.Needs)
	}
	fmt.Fprintln(w, line)
}
