package forge

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Repo names a repository on a forge's host.
type Repo struct {
	// Host is the forge's host ("github.com", or a GitHub Enterprise host).
	Host  string
	Owner string
	Name  string
}

// String is owner/name, with the host before it when it is not github.com.
func (r Repo) String() string {
	if r.Host == "" || r.Host == DefaultHost {
		return r.Owner + "/" + r.Name
	}
	return r.Host + "/" + r.Owner + "/" + r.Name
}

// DefaultHost is the host of a reference that names none.
const DefaultHost = "github.com"

// IssueRef names one issue (or pull request: GitHub numbers them alike).
type IssueRef struct {
	Repo
	Number int
}

// String is owner/name#N (host/owner/name#N off github.com).
func (r IssueRef) String() string { return r.Repo.String() + "#" + strconv.Itoa(r.Number) }

// ParseIssueRef reads an issue as a person writes it: owner/name#N,
// host/owner/name#N, an issue's or pull request's URL
// (https://host/owner/name/issues/N or /pull/N), or #N and N alone, which
// take their repository from def (the work tree's remote). The host of a
// reference that names none is def's, or [DefaultHost].
func ParseIssueRef(s string, def Repo) (IssueRef, error) {
	in := strings.TrimSpace(s)
	bad := func(why string) (IssueRef, error) {
		return IssueRef{}, fmt.Errorf("issue %q: %s; write owner/repo#123, an issue's URL, or #123 in a clone of its repository", s, why)
	}
	if in == "" {
		return bad("empty")
	}
	host := def.Host
	if host == "" {
		host = DefaultHost
	}
	if strings.Contains(in, "://") {
		u, err := url.Parse(in)
		if err != nil || u.Host == "" {
			return bad("not a URL")
		}
		parts := strings.Split(strings.Trim(u.Path, "/"), "/")
		if len(parts) != 4 || (parts[2] != "issues" && parts[2] != "pull" && parts[2] != "pulls") {
			return bad("not the URL of an issue or a pull request")
		}
		n, err := number(parts[3])
		if err != nil {
			return bad(err.Error())
		}
		return checkRef(IssueRef{Repo: Repo{Host: strings.ToLower(u.Host), Owner: parts[0], Name: parts[1]}, Number: n}, s)
	}
	repoPart, num, found := strings.Cut(in, "#")
	if !found {
		repoPart, num = "", in
	}
	n, err := number(num)
	if err != nil {
		return bad(err.Error())
	}
	if repoPart == "" {
		if def.Owner == "" || def.Name == "" {
			return bad("no repository named, and none known from the work tree's remote")
		}
		return checkRef(IssueRef{Repo: Repo{Host: host, Owner: def.Owner, Name: def.Name}, Number: n}, s)
	}
	parts := strings.Split(repoPart, "/")
	switch len(parts) {
	case 2:
		return checkRef(IssueRef{Repo: Repo{Host: host, Owner: parts[0], Name: parts[1]}, Number: n}, s)
	case 3:
		return checkRef(IssueRef{Repo: Repo{Host: strings.ToLower(parts[0]), Owner: parts[1], Name: parts[2]}, Number: n}, s)
	}
	return bad("the repository is not owner/name")
}

func number(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not an issue number", s)
	}
	return n, nil
}

// checkRef refuses the names GitHub would refuse: an owner or repository
// name empty or with characters outside its alphabet. A host may have a
// port (a GitHub Enterprise on its own).
func checkRef(r IssueRef, s string) (IssueRef, error) {
	host := r.Host
	if h, port, ok := strings.Cut(host, ":"); ok {
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return IssueRef{}, fmt.Errorf("issue %q: %q is not a valid host; write owner/repo#123", s, r.Host)
		}
		host = h
	}
	for _, part := range []string{host, r.Owner, r.Name} {
		if part == "" || strings.ContainsAny(part, " \t/\\?#%@:") || part == "." || part == ".." {
			return IssueRef{}, fmt.Errorf("issue %q: %q is not a valid host, owner or repository name; write owner/repo#123", s, part)
		}
	}
	return r, nil
}
