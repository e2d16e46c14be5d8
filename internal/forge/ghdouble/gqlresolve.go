package ghdouble

import (
	"fmt"
	"strings"
)

type gThread struct {
	it *item
	th Thread
}

type gComment struct {
	it *item
	th Thread
	cm Comment
}

// resolve answers field f of v, an object of type typ.
func (x *gExec) resolve(typ string, v any, f *gField, path []any) (any, bool) {
	c, s := x.c, x.s
	loc := []obj{{"line": f.line, "column": f.col}}
	switch typ {
	case "Query":
		switch f.name {
		case "repository":
			owner, _ := x.arg(f, "owner").(string)
			name, _ := x.arg(f, "name").(string)
			r := s.repos[repoKey(owner, name)]
			if r == nil || (r.setup.Private && r.perm(c.tok.Login) == "") {
				x.errs = append(x.errs, gqlError{Type: "NOT_FOUND", Path: path, Locations: loc,
					Message: fmt.Sprintf("Could not resolve to a Repository with the name '%s/%s'.", owner, name)})
				return nil, true
			}
			c.repo = r
			return r, true
		case "viewer":
			return c.tok.Login, true
		case "rateLimit":
			return s.bucketLocked(c.tok.Login+"/graphql", s.opts.Limit), true
		}
	case "Repository":
		r := v.(*repo)
		switch f.name {
		case "id":
			return nodeID("Repository", r.id), true
		case "name":
			return r.name, true
		case "nameWithOwner":
			return r.owner + "/" + r.name, true
		case "url":
			return c.repoWeb(r), true
		case "hasIssuesEnabled", "issue", "issueOrPullRequest", "pullRequests":
			return x.repoField(r, f, path)
		case "pullRequest":
			n, _ := x.intArg(f, "number")
			it := r.items[n]
			if it == nil || it.pr == nil {
				x.errs = append(x.errs, gqlError{Type: "NOT_FOUND", Path: path, Locations: loc,
					Message: fmt.Sprintf("Could not resolve to a PullRequest with the number of %d.", n)})
				return nil, true
			}
			return it, true
		}
	case "Issue":
		return x.issueField(v.(*item), f, path)
	case "PullRequest":
		if val, ok := x.pullRequest(v.(*item), f, path); ok {
			return val, true
		}
		return x.issueField(v.(*item), f, path)
	case "Label":
		return labelField(v.(gLabel), f)
	case "PullRequestReviewThreadConnection", "PullRequestReviewCommentConnection", "PullRequestConnection", "LabelConnection":
		return x.connection(v.(conn), f)
	case "PullRequestReviewThreadEdge", "PullRequestReviewCommentEdge":
		e := v.(obj)
		return e[f.name], true
	case "PullRequestReviewThread":
		return x.thread(v.(gThread), f, path)
	case "PullRequestReviewComment":
		return x.comment(v.(gComment), f)
	case "Actor", "User", "RepositoryOwner", "Bot", "Organization", "Mannequin", "EnterpriseUserAccount":
		login := v.(string)
		switch f.name {
		case "name":
			return nil, true
		case "login":
			return strings.TrimSuffix(login, "[bot]"), true
		case "url":
			return c.web() + "/" + login, true
		case "avatarUrl":
			return fmt.Sprintf("%s/avatars/u/%d", c.web(), s.userID(login)), true
		case "id":
			return nodeID("User", s.userID(login)), true
		}
	case "PageInfo":
		return v.(obj)[f.name], true
	case "RateLimit":
		b := v.(*bucket)
		return map[string]any{"limit": b.limit, "cost": 1, "remaining": b.remaining(), "used": b.used,
			"resetAt": ts(b.reset), "nodeCount": 1}[f.name], true
	}
	return nil, false
}

func (x *gExec) pullRequest(it *item, f *gField, path []any) (any, bool) {
	c := x.c
	pr := it.pr
	switch f.name {
	case "isDraft":
		return pr.Draft, true
	case "headRefName":
		return pr.Head, true
	case "headRefOid":
		return pr.HeadSHA, true
	case "baseRefName":
		return pr.Base, true
	case "isCrossRepository":
		return false, true
	case "headRepositoryOwner":
		return c.repo.owner, true
	case "mergeable":
		switch {
		case it.unknown:
			it.unknown = false
			return "UNKNOWN", true
		case pr.Conflict:
			return "CONFLICTING", true
		}
		return "MERGEABLE", true
	case "reviewThreads":
		var all []any
		for _, th := range pr.Threads {
			all = append(all, gThread{it: it, th: th})
		}
		page, ok := x.page(f, all, path)
		if !ok {
			return nil, true
		}
		return page, true
	}
	return nil, false
}

func (x *gExec) connection(p conn, f *gField) (any, bool) {
	switch f.name {
	case "nodes":
		return p.nodes, true
	case "edges":
		var es []any
		for i, n := range p.nodes {
			es = append(es, obj{"cursor": cursor(p.from + i), "node": n})
		}
		return es, true
	case "totalCount":
		return p.all, true
	case "pageInfo":
		var start, end any
		if p.pageLength > 0 {
			start, end = cursor(p.from), cursor(p.from+p.pageLength-1)
		}
		return obj{"hasNextPage": p.from+p.pageLength < p.all, "hasPreviousPage": p.from > 0,
			"startCursor": start, "endCursor": end}, true
	}
	return nil, false
}

func (x *gExec) thread(t gThread, f *gField, path []any) (any, bool) {
	switch f.name {
	case "id":
		return t.th.ID, true
	case "isResolved":
		return t.th.Resolved, true
	case "isOutdated":
		return t.th.Outdated, true
	case "isCollapsed":
		return t.th.Resolved, true
	case "path":
		return t.th.Path, true
	case "line", "originalLine":
		if t.th.Line == 0 {
			return nil, true
		}
		return t.th.Line, true
	case "startLine", "originalStartLine":
		return nil, true
	case "diffSide", "startDiffSide":
		return "RIGHT", true
	case "subjectType":
		return "LINE", true
	case "viewerCanReply":
		return true, true
	case "viewerCanResolve":
		return !t.th.Resolved && x.c.repo.atLeast(x.c.tok.Login, "write"), true
	case "viewerCanUnresolve":
		return t.th.Resolved && x.c.repo.atLeast(x.c.tok.Login, "write"), true
	case "comments":
		var all []any
		for _, cm := range t.th.Comments {
			all = append(all, gComment{it: t.it, th: t.th, cm: cm})
		}
		page, ok := x.page(f, all, path)
		if !ok {
			return nil, true
		}
		return page, true
	}
	return nil, false
}

func (x *gExec) comment(g gComment, f *gField) (any, bool) {
	c := x.c
	switch f.name {
	case "id":
		return nodeID("PullRequestReviewComment", g.cm.ID), true
	case "databaseId":
		return g.cm.ID, true
	case "body":
		return g.cm.Body, true
	case "url":
		return fmt.Sprintf("%s/pull/%d#discussion_r%d", c.repoWeb(c.repo), g.it.issue.Number, g.cm.ID), true
	case "createdAt":
		return ts(g.cm.CreatedAt), true
	case "updatedAt":
		return ts(g.cm.UpdatedAt), true
	case "path":
		return g.th.Path, true
	case "line":
		if g.th.Line == 0 {
			return nil, true
		}
		return g.th.Line, true
	case "outdated":
		return g.th.Outdated, true
	case "diffHunk":
		return "@@ -1,1 +1,1 @@", true
	case "author":
		return g.cm.Author, true
	case "authorAssociation":
		return strings.ToUpper(c.repo.association(g.cm.Author)), true
	}
	return nil, false
}
