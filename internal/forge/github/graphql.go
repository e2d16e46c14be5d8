package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/textcut"
)

// threadsQuery reads a pull request's review threads: REST has no
// resolved flag.
const threadsQuery = `query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100) {
        nodes {
          isResolved
          path
          line
          comments(first: 50) {
            nodes { databaseId author { login } body createdAt url }
          }
        }
      }
    }
  }
}`

// graphQL sends query with vars and decodes its data into data. GitHub
// answers a GraphQL error with 200 and an errors list: a rate limit there
// is waited out like REST's, the others are named as REST's are.
func (c *Client) graphQL(ctx context.Context, query string, vars map[string]any, data any) error {
	r := request{method: http.MethodPost, path: c.graphql, body: map[string]any{"query": query, "variables": vars}, retry: true}
	for limited := 0; ; limited++ {
		resp, err := c.do(ctx, r)
		if err != nil {
			return err
		}
		var answer struct {
			Data   json.RawMessage `json:"data"`
			Errors []struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"errors"`
		}
		if err := decode(resp, r.method, &answer); err != nil {
			return err
		}
		if len(answer.Errors) == 0 {
			return json.Unmarshal(answer.Data, data)
		}
		e := answer.Errors[0]
		path := resp.Request.URL.Path
		fail := func(err error, hint string) error {
			return &Error{Method: r.method, Path: path, Status: resp.StatusCode, Message: c.scrub(textcut.Bytes(textcut.Line(e.Message), 300)), Hint: hint, Err: err}
		}
		switch e.Type {
		case "RATE_LIMITED":
			resume := c.now().Add(grow(secondaryWait, limited))
			if n, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
				resume = time.Unix(n, 0).Add(time.Second)
			}
			if err := c.waitLimit(ctx, r.method, path, resume); err != nil {
				return err
			}
			continue
		case "NOT_FOUND":
			return fail(forge.ErrNotFound, "check the repository and number, and that the token can see the repository")
		case "FORBIDDEN", "INSUFFICIENT_SCOPES":
			return fail(forge.ErrScope, scopeHint(resp.Header))
		}
		return fail(forge.ErrRefused, "")
	}
}

// threads are number's unresolved review threads.
func (c *Client) threads(ctx context.Context, repo forge.Repo, number int) ([]forge.Thread, error) {
	var data struct {
		Repository struct {
			PullRequest struct {
				ReviewThreads struct {
					Nodes []struct {
						IsResolved bool   `json:"isResolved"`
						Path       string `json:"path"`
						Line       *int   `json:"line"`
						Comments   struct {
							Nodes []struct {
								DatabaseID int64     `json:"databaseId"`
								Author     *user     `json:"author"`
								Body       string    `json:"body"`
								CreatedAt  time.Time `json:"createdAt"`
								URL        string    `json:"url"`
							} `json:"nodes"`
						} `json:"comments"`
					} `json:"nodes"`
				} `json:"reviewThreads"`
			} `json:"pullRequest"`
		} `json:"repository"`
	}
	vars := map[string]any{"owner": repo.Owner, "name": repo.Name, "number": number}
	if err := c.graphQL(ctx, threadsQuery, vars, &data); err != nil {
		return nil, fmt.Errorf("read the review threads: %w", err)
	}
	var out []forge.Thread
	for _, n := range data.Repository.PullRequest.ReviewThreads.Nodes {
		if n.IsResolved {
			continue
		}
		t := forge.Thread{Path: n.Path}
		if n.Line != nil {
			t.Line = *n.Line
		}
		for _, cm := range n.Comments.Nodes {
			var login string
			if cm.Author != nil { // a deleted account
				login = cm.Author.Login
			}
			// GraphQL gives no author_association here: ask.
			trusted, err := c.trusted(ctx, repo, login, "")
			if err != nil {
				return nil, fmt.Errorf("read the review threads: %w", err)
			}
			t.Comments = append(t.Comments, forge.Comment{ID: cm.DatabaseID, Author: strings.TrimSpace(login), Trusted: trusted,
				Body: cm.Body, URL: cm.URL, CreatedAt: cm.CreatedAt, UpdatedAt: cm.CreatedAt})
		}
		out = append(out, t)
	}
	return out, nil
}
