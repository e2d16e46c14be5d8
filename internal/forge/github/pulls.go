package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
)

type prJSON struct {
	Number         int    `json:"number"`
	HTMLURL        string `json:"html_url"`
	State          string `json:"state"`
	Merged         bool   `json:"merged"`
	Mergeable      *bool  `json:"mergeable"`
	MergeableState string `json:"mergeable_state"`
	Head           struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	} `json:"head"`
	Base struct {
		Ref string `json:"ref"`
	} `json:"base"`
}

func (j prJSON) pr(repo forge.Repo) forge.PR {
	pr := forge.PR{Repo: repo, Number: j.Number, URL: j.HTMLURL, Head: j.Head.Ref, HeadSHA: j.Head.SHA, Base: j.Base.Ref, State: forge.PROpen}
	switch {
	case j.Merged:
		pr.State = forge.PRMerged
	case j.State == "closed":
		pr.State = forge.PRClosed
	}
	pr.Conflict = pr.State == forge.PROpen && ((j.Mergeable != nil && !*j.Mergeable) || j.MergeableState == "dirty")
	return pr
}

// mergeableTries is how often a pull request is read while GitHub is
// still computing whether it merges (mergeable null), with backoff.
const mergeableTries = 4

// OpenPR updates the open pull request from spec.Head (its title, body and
// base), or opens one: a restart never opens a second. Two agentloops
// opening at once meet GitHub's "already exists" and the second updates.
func (c *Client) OpenPR(ctx context.Context, spec forge.PRSpec) (forge.PR, error) {
	rp, err := c.repoPath(spec.Repo)
	if err != nil {
		return forge.PR{}, err
	}
	if spec.Head == "" || spec.Base == "" || spec.Title == "" {
		return forge.PR{}, fmt.Errorf("open a pull request on %s: the head branch, base branch and title are needed", spec.Repo)
	}
	what := fmt.Sprintf("open a pull request from %s into %s on %s", spec.Head, spec.Base, spec.Repo)
	pr, found, err := c.openPR(ctx, spec, rp)
	if err != nil {
		return forge.PR{}, fmt.Errorf("%s: %w", what, err)
	}
	if found {
		return pr, nil
	}
	var j prJSON
	create := request{method: http.MethodPost, path: rp + "/pulls", body: map[string]any{
		"title": spec.Title, "head": spec.Head, "base": spec.Base, "body": spec.Body, "draft": spec.Draft,
	}}
	err = c.send(ctx, create, &j)
	if errors.Is(err, forge.ErrRefused) {
		// Another agentloop may have opened it since: update that one.
		if pr, found, ferr := c.openPR(ctx, spec, rp); ferr == nil && found {
			return pr, nil
		}
	}
	if err != nil {
		return forge.PR{}, fmt.Errorf("%s: %w", what, err)
	}
	return j.pr(spec.Repo), nil
}

// openPR finds the open pull request from spec.Head and updates it.
func (c *Client) openPR(ctx context.Context, spec forge.PRSpec, rp string) (forge.PR, bool, error) {
	v := url.Values{"head": {spec.Repo.Owner + ":" + spec.Head}, "state": {"open"}}
	var open []prJSON
	if err := c.getJSON(ctx, rp+"/pulls?"+v.Encode(), &open); err != nil {
		return forge.PR{}, false, err
	}
	if len(open) == 0 {
		return forge.PR{}, false, nil
	}
	var j prJSON
	update := request{method: http.MethodPatch, path: rp + "/pulls/" + strconv.Itoa(open[0].Number), retry: true,
		body: map[string]any{"title": spec.Title, "body": spec.Body, "base": spec.Base}}
	if err := c.send(ctx, update, &j); err != nil {
		return forge.PR{}, false, err
	}
	return j.pr(spec.Repo), true, nil
}

// PRStatus reads pull request number of repo: its state and whether it
// merges, its head's checks (with the log tail of each failed GitHub
// Actions job), its reviews, its unresolved review threads and its
// conversation.
func (c *Client) PRStatus(ctx context.Context, repo forge.Repo, number int) (forge.PRStatus, error) {
	rp, err := c.repoPath(repo)
	if err != nil {
		return forge.PRStatus{}, err
	}
	what := fmt.Sprintf("read pull request %s#%d", repo, number)
	var st forge.PRStatus
	if st.PR, err = c.pull(ctx, repo, rp, number); err != nil {
		return forge.PRStatus{}, fmt.Errorf("%s: %w", what, err)
	}
	if st.PR.HeadSHA != "" {
		if st.Checks, err = c.checks(ctx, rp, st.PR.HeadSHA); err != nil {
			return forge.PRStatus{}, fmt.Errorf("%s: %w", what, err)
		}
	}
	if st.Reviews, err = c.reviews(ctx, repo, rp, number); err != nil {
		return forge.PRStatus{}, fmt.Errorf("%s: %w", what, err)
	}
	if st.Threads, err = c.threads(ctx, repo, number); err != nil {
		return forge.PRStatus{}, fmt.Errorf("%s: %w", what, err)
	}
	if st.Comments, err = c.Comments(ctx, forge.IssueRef{Repo: repo, Number: number}); err != nil {
		return forge.PRStatus{}, fmt.Errorf("%s: %w", what, err)
	}
	return st, nil
}

// pull reads a pull request, again with backoff while GitHub is still
// computing whether it merges; still unknown after that is no conflict.
func (c *Client) pull(ctx context.Context, repo forge.Repo, rp string, number int) (forge.PR, error) {
	for try := 1; ; try++ {
		var j prJSON
		if err := c.getJSON(ctx, rp+"/pulls/"+strconv.Itoa(number), &j); err != nil {
			return forge.PR{}, err
		}
		if j.Mergeable != nil || j.Merged || j.State != "open" || try == mergeableTries {
			return j.pr(repo), nil
		}
		if err := c.sleep(ctx, grow(firstBackoff, try-1)); err != nil {
			return forge.PR{}, err
		}
	}
}

// maxLogs bounds the failed jobs whose logs one status reads.
const maxLogs = 5

func (c *Client) checks(ctx context.Context, rp, sha string) ([]forge.Check, error) {
	var out []forge.Check
	var jobs []int64
	err := c.pages(ctx, rp+"/commits/"+url.PathEscape(sha)+"/check-runs?per_page=100", func(resp *http.Response) error {
		var page struct {
			CheckRuns []struct {
				ID         int64  `json:"id"`
				Name       string `json:"name"`
				Status     string `json:"status"`
				Conclusion string `json:"conclusion"`
				HTMLURL    string `json:"html_url"`
				App        struct {
					Slug string `json:"slug"`
				} `json:"app"`
			} `json:"check_runs"`
		}
		if err := decode(resp, http.MethodGet, &page); err != nil {
			return err
		}
		for _, r := range page.CheckRuns {
			out = append(out, forge.Check{Name: r.Name, Status: r.Status, Conclusion: r.Conclusion, URL: r.HTMLURL})
			// An Actions check run's id is its job's; a run of another
			// app has no Actions job (GitHub may leave app out: try).
			job := r.ID
			if r.App.Slug != "" && r.App.Slug != "github-actions" {
				job = 0
			}
			jobs = append(jobs, job)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the checks of %s: %w", sha, err)
	}
	logs := 0
	for i := range out {
		if !out[i].Failed() || jobs[i] == 0 || logs == maxLogs {
			continue
		}
		logs++
		out[i].LogTail, err = c.logTail(ctx, rp, jobs[i])
		if ctx.Err() != nil {
			return nil, err
		}
		switch {
		case errors.Is(err, forge.ErrNotFound): // no Actions job, or its log expired
			c.log.DebugContext(ctx, "github job log not found", "check", out[i].Name)
		case err != nil:
			// The check's verdict is the evidence; its log only helps.
			c.log.WarnContext(ctx, "github job log not read", "check", out[i].Name, "err", err)
		}
	}
	return out, nil
}

// logTail is the end of job's log. GitHub answers with a redirect to where
// the log is stored; the token does not follow it to another host.
func (c *Client) logTail(ctx context.Context, rp string, job int64) (string, error) {
	resp, err := c.do(ctx, get(rp+"/actions/jobs/"+strconv.FormatInt(job, 10)+"/logs"))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET the log of job %d: HTTP %d", job, resp.StatusCode)
	}
	s, err := readTail(resp.Body, logTailBytes)
	if err != nil {
		return "", fmt.Errorf("read the log of job %d: %w", job, err)
	}
	return s, nil
}

func (c *Client) reviews(ctx context.Context, repo forge.Repo, rp string, number int) ([]forge.Review, error) {
	var out []forge.Review
	err := c.pages(ctx, rp+"/pulls/"+strconv.Itoa(number)+"/reviews?per_page=100", func(resp *http.Response) error {
		var list []struct {
			ID                int64     `json:"id"`
			User              user      `json:"user"`
			Body              string    `json:"body"`
			State             string    `json:"state"`
			AuthorAssociation string    `json:"author_association"`
			SubmittedAt       time.Time `json:"submitted_at"`
		}
		if err := decode(resp, http.MethodGet, &list); err != nil {
			return err
		}
		for _, r := range list {
			trusted, err := c.trusted(ctx, repo, r.User.Login, r.AuthorAssociation)
			if err != nil {
				return err
			}
			out = append(out, forge.Review{ID: r.ID, Author: r.User.Login, Trusted: trusted, State: r.State, Body: r.Body, SubmittedAt: r.SubmittedAt})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the reviews: %w", err)
	}
	return out, nil
}
