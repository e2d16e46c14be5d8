package ghdouble

import (
	"bytes"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// Seed is a double's state as a file writes it (YAML, or JSON, which YAML
// reads too), for the command and for a benchmark that seeds many issues.
type Seed struct {
	Tokens []SeedToken `yaml:"tokens"`
	Repos  []SeedRepo  `yaml:"repos"`
}

// SeedToken is a token and who it stands for.
type SeedToken struct {
	Token  string   `yaml:"token"`
	Login  string   `yaml:"login"`
	Scopes []string `yaml:"scopes"`
}

// SeedRepo is a repository with its issues and pull requests, numbered in
// the order given: issues first, then pull requests.
type SeedRepo struct {
	Name          string            `yaml:"name"` // owner/name
	Private       bool              `yaml:"private"`
	DefaultBranch string            `yaml:"default_branch"`
	Remote        string            `yaml:"remote"`
	Permissions   map[string]string `yaml:"permissions"` // login → admin, maintain, write, triage, read
	Branches      map[string]string `yaml:"branches"`    // name → sha
	Issues        []SeedIssue       `yaml:"issues"`
	Pulls         []SeedPull        `yaml:"pulls"`
}

// SeedIssue is an issue with its comments.
type SeedIssue struct {
	Title     string        `yaml:"title"`
	Body      string        `yaml:"body"`
	Author    string        `yaml:"author"`
	Labels    []string      `yaml:"labels"`
	State     string        `yaml:"state"`
	BlockedBy []int         `yaml:"blocked_by"`
	Comments  []SeedComment `yaml:"comments"`
}

// SeedComment is a comment, or a review thread's comment.
type SeedComment struct {
	Author string `yaml:"author"`
	Body   string `yaml:"body"`
}

// SeedPull is a pull request with its checks, reviews and threads.
type SeedPull struct {
	Title    string         `yaml:"title"`
	Body     string         `yaml:"body"`
	Author   string         `yaml:"author"`
	Head     string         `yaml:"head"`
	Base     string         `yaml:"base"`
	Draft    bool           `yaml:"draft"`
	Conflict bool           `yaml:"conflict"`
	Checks   []CheckRunSeed `yaml:"checks"`
	Reviews  []SeedReview   `yaml:"reviews"`
	Threads  []SeedThread   `yaml:"threads"`
}

// CheckRunSeed is a check run on a pull request's head.
type CheckRunSeed struct {
	Name       string `yaml:"name"`
	Status     string `yaml:"status"`
	Conclusion string `yaml:"conclusion"`
	Log        string `yaml:"log"`
}

// SeedReview is a submitted review.
type SeedReview struct {
	Author string `yaml:"author"`
	State  string `yaml:"state"`
	Body   string `yaml:"body"`
}

// SeedThread is a review thread.
type SeedThread struct {
	Path     string        `yaml:"path"`
	Line     int           `yaml:"line"`
	Resolved bool          `yaml:"resolved"`
	Outdated bool          `yaml:"outdated"`
	Comments []SeedComment `yaml:"comments"`
}

// ReadSeed reads a seed file; an unknown key is an error naming its line.
func ReadSeed(path string) (Seed, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Seed{}, fmt.Errorf("read the seed: %w", err)
	}
	var sd Seed
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&sd); err != nil {
		return Seed{}, fmt.Errorf("seed %s: %w (see the Seed type of package ghdouble for its keys)", path, err)
	}
	return sd, nil
}

// Apply adds sd's state to the double.
func (s *Server) Apply(sd Seed) {
	for _, t := range sd.Tokens {
		s.AddToken(t.Token, Token{Login: t.Login, Scopes: t.Scopes})
	}
	for _, r := range sd.Repos {
		s.AddRepo(r.Name, Repo{Private: r.Private, DefaultBranch: r.DefaultBranch, Remote: r.Remote})
		for login, perm := range r.Permissions {
			s.SetPermission(r.Name, login, perm)
		}
		for name, sha := range r.Branches {
			s.SetBranch(r.Name, name, sha)
		}
		for _, is := range r.Issues {
			n := s.AddIssue(r.Name, Issue{Title: is.Title, Body: is.Body, Author: is.Author, Labels: is.Labels, State: is.State, BlockedBy: is.BlockedBy})
			for _, c := range is.Comments {
				s.AddComment(r.Name, n, c.Author, c.Body)
			}
		}
		for _, p := range r.Pulls {
			n := s.AddPR(r.Name, PR{Title: p.Title, Body: p.Body, Author: p.Author, Head: p.Head, Base: p.Base, Draft: p.Draft, Conflict: p.Conflict})
			pr, _ := s.PR(r.Name, n)
			for _, c := range p.Checks {
				s.AddCheckRun(r.Name, pr.HeadSHA, CheckRun{Name: c.Name, Status: c.Status, Conclusion: c.Conclusion, Log: c.Log})
			}
			for _, rv := range p.Reviews {
				s.AddReview(r.Name, n, Review{Author: rv.Author, State: rv.State, Body: rv.Body})
			}
			for _, th := range p.Threads {
				t := Thread{Path: th.Path, Line: th.Line, Resolved: th.Resolved, Outdated: th.Outdated}
				for _, c := range th.Comments {
					t.Comments = append(t.Comments, Comment{Author: c.Author, Body: c.Body})
				}
				s.AddThread(r.Name, n, t)
			}
		}
	}
}
