package ghdouble

import (
	"fmt"
	"slices"
)

type gLabel struct {
	id   int64
	name string
}

// repoField answers the Repository fields that find issues and pull
// requests.
func (x *gExec) repoField(r *repo, f *gField, path []any) (any, bool) {
	loc := []obj{{"line": f.line, "column": f.col}}
	n, _ := x.intArg(f, "number")
	missing := func(kind string) (any, bool) {
		x.errs = append(x.errs, gqlError{Type: "NOT_FOUND", Path: path, Locations: loc,
			Message: fmt.Sprintf("Could not resolve to %s with the number of %d.", kind, n)})
		return nil, true
	}
	switch f.name {
	case "hasIssuesEnabled":
		return true, true
	case "issue":
		if it := r.items[n]; it != nil && it.pr == nil {
			return it, true
		}
		return missing("an Issue")
	case "issueOrPullRequest":
		if it := r.items[n]; it != nil {
			return it, true
		}
		return missing("an issue or pull request")
	case "pullRequests":
		states := map[string]bool{}
		switch v := x.arg(f, "states").(type) {
		case []any:
			for _, s := range v {
				states[fmt.Sprint(s)] = true
			}
		case string:
			states[v] = true
		}
		base, _ := x.arg(f, "baseRefName").(string)
		head, _ := x.arg(f, "headRefName").(string)
		ns := r.numbers()
		slices.Reverse(ns)
		var all []any
		for _, n := range ns {
			it := r.items[n]
			if it.pr == nil || (len(states) > 0 && !states[prState(it)]) ||
				(base != "" && it.pr.Base != base) || (head != "" && it.pr.Head != head) {
				continue
			}
			all = append(all, it)
		}
		page, ok := x.page(f, all, path)
		if !ok {
			return nil, true
		}
		return page, true
	}
	return nil, false
}

func prState(it *item) string {
	switch {
	case it.pr.Merged:
		return "MERGED"
	case it.issue.State == "closed":
		return "CLOSED"
	}
	return "OPEN"
}

// issueField answers the fields an Issue and a PullRequest share.
func (x *gExec) issueField(it *item, f *gField, path []any) (any, bool) {
	c := x.c
	is := &it.issue
	switch f.name {
	case "id":
		kind := "Issue"
		if it.pr != nil {
			kind = "PullRequest"
		}
		return nodeID(kind, c.repo.id*10000+int64(is.Number)), true
	case "number":
		return is.Number, true
	case "title":
		return is.Title, true
	case "body":
		return is.Body, true
	case "url":
		kind := "issues"
		if it.pr != nil {
			kind = "pull"
		}
		return fmt.Sprintf("%s/%s/%d", c.repoWeb(c.repo), kind, is.Number), true
	case "state":
		if it.pr != nil {
			return prState(it), true
		}
		if is.State == "closed" {
			return "CLOSED", true
		}
		return "OPEN", true
	case "closed":
		return is.State == "closed", true
	case "author":
		return is.Author, true
	case "createdAt":
		return ts(is.CreatedAt), true
	case "updatedAt":
		return ts(is.UpdatedAt), true
	case "labels":
		var all []any
		for _, l := range is.Labels {
			all = append(all, gLabel{id: c.repo.labelID(x.s, l), name: l})
		}
		page, ok := x.page(f, all, path)
		if !ok {
			return nil, true
		}
		return page, true
	}
	return nil, false
}

func labelField(l gLabel, f *gField) (any, bool) {
	switch f.name {
	case "id":
		return nodeID("Label", l.id), true
	case "name":
		return l.name, true
	case "description":
		return nil, true
	case "color":
		return "ededed", true
	}
	return nil, false
}
