package github

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
)

type commentJSON struct {
	ID                int64     `json:"id"`
	Body              string    `json:"body"`
	HTMLURL           string    `json:"html_url"`
	User              user      `json:"user"`
	AuthorAssociation string    `json:"author_association"`
	CreatedAt         time.Time `json:"created_at"`
	UpdatedAt         time.Time `json:"updated_at"`
}

func (c *Client) comment(ctx context.Context, repo forge.Repo, j commentJSON) (forge.Comment, error) {
	trusted, err := c.trusted(ctx, repo, j.User.Login, j.AuthorAssociation)
	if err != nil {
		return forge.Comment{}, err
	}
	return forge.Comment{ID: j.ID, Author: j.User.Login, Trusted: trusted, Body: j.Body, URL: j.HTMLURL,
		CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt}, nil
}

// Comments are ref's comments, oldest first.
func (c *Client) Comments(ctx context.Context, ref forge.IssueRef) ([]forge.Comment, error) {
	rp, err := c.repoPath(ref.Repo)
	if err != nil {
		return nil, err
	}
	var out []forge.Comment
	err = c.pages(ctx, rp+"/issues/"+strconv.Itoa(ref.Number)+"/comments?per_page=100", func(resp *http.Response) error {
		var list []commentJSON
		if err := decode(resp, http.MethodGet, &list); err != nil {
			return err
		}
		for _, j := range list {
			cm, err := c.comment(ctx, ref.Repo, j)
			if err != nil {
				return err
			}
			out = append(out, cm)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the comments of %s: %w", ref, err)
	}
	return out, nil
}

// Comment adds a comment to ref. It is not sent again when no answer
// comes: that could post it twice.
func (c *Client) Comment(ctx context.Context, ref forge.IssueRef, body string) (forge.Comment, error) {
	rp, err := c.repoPath(ref.Repo)
	if err != nil {
		return forge.Comment{}, err
	}
	var j commentJSON
	r := request{method: http.MethodPost, path: rp + "/issues/" + strconv.Itoa(ref.Number) + "/comments", body: map[string]string{"body": body}}
	if err := c.send(ctx, r, &j); err != nil {
		return forge.Comment{}, fmt.Errorf("comment on %s: %w", ref, err)
	}
	return c.comment(ctx, ref.Repo, j)
}

// EditComment replaces the body of comment id of repo.
func (c *Client) EditComment(ctx context.Context, repo forge.Repo, id int64, body string) (forge.Comment, error) {
	rp, err := c.repoPath(repo)
	if err != nil {
		return forge.Comment{}, err
	}
	var j commentJSON
	r := request{method: http.MethodPatch, path: rp + "/issues/comments/" + strconv.FormatInt(id, 10), body: map[string]string{"body": body}, retry: true}
	if err := c.send(ctx, r, &j); err != nil {
		return forge.Comment{}, fmt.Errorf("edit comment %d on %s: %w", id, repo, err)
	}
	return c.comment(ctx, repo, j)
}
