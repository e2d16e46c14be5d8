package ghdouble

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// gqlTypes are the object types and fields of GitHub's GraphQL schema the
// double answers (testdata/README.md names the source); a field's type is
// an object type of this table or a scalar or enum, "[T]" a list.
var gqlTypes = map[string]map[string]string{
	"Query": {"repository": "Repository", "viewer": "User", "rateLimit": "RateLimit"},
	"Repository": {"id": "ID", "name": "String", "nameWithOwner": "String", "url": "URI",
		"hasIssuesEnabled": "Boolean", "pullRequest": "PullRequest", "issue": "Issue",
		"issueOrPullRequest": "IssueOrPullRequest", "pullRequests": "PullRequestConnection"},
	"Issue": {"id": "ID", "number": "Int", "title": "String", "body": "String", "url": "URI", "state": "IssueState",
		"closed": "Boolean", "author": "Actor", "createdAt": "DateTime", "updatedAt": "DateTime", "labels": "LabelConnection"},
	"PullRequest": {"id": "ID", "number": "Int", "title": "String", "body": "String", "url": "URI", "state": "PullRequestState",
		"closed": "Boolean", "author": "Actor", "createdAt": "DateTime", "updatedAt": "DateTime", "labels": "LabelConnection",
		"isDraft": "Boolean", "headRefName": "String", "headRefOid": "GitObjectID", "baseRefName": "String",
		"isCrossRepository": "Boolean", "headRepositoryOwner": "RepositoryOwner",
		"mergeable": "MergeableState", "reviewThreads": "PullRequestReviewThreadConnection"},
	"PullRequestConnection": {"nodes": "[PullRequest]", "pageInfo": "PageInfo", "totalCount": "Int"},
	"LabelConnection":       {"nodes": "[Label]", "pageInfo": "PageInfo", "totalCount": "Int"},
	"Label":                 {"id": "ID", "name": "String", "description": "String", "color": "String"},
	"PullRequestReviewThreadConnection": {"nodes": "[PullRequestReviewThread]", "edges": "[PullRequestReviewThreadEdge]",
		"pageInfo": "PageInfo", "totalCount": "Int"},
	"PullRequestReviewThreadEdge": {"cursor": "String", "node": "PullRequestReviewThread"},
	"PullRequestReviewThread": {"id": "ID", "isResolved": "Boolean", "isOutdated": "Boolean", "isCollapsed": "Boolean",
		"path": "String", "line": "Int", "originalLine": "Int", "startLine": "Int", "originalStartLine": "Int",
		"diffSide": "DiffSide", "startDiffSide": "DiffSide", "subjectType": "PullRequestReviewThreadSubjectType",
		"viewerCanReply": "Boolean", "viewerCanResolve": "Boolean", "viewerCanUnresolve": "Boolean",
		"comments": "PullRequestReviewCommentConnection"},
	"PullRequestReviewCommentConnection": {"nodes": "[PullRequestReviewComment]", "edges": "[PullRequestReviewCommentEdge]",
		"pageInfo": "PageInfo", "totalCount": "Int"},
	"PullRequestReviewCommentEdge": {"cursor": "String", "node": "PullRequestReviewComment"},
	"PullRequestReviewComment": {"id": "ID", "databaseId": "Int", "body": "String", "url": "URI",
		"createdAt": "DateTime", "updatedAt": "DateTime", "path": "String", "line": "Int", "outdated": "Boolean",
		"diffHunk": "String", "author": "Actor", "authorAssociation": "CommentAuthorAssociation"},
	"Actor":                 {"login": "String", "url": "URI", "avatarUrl": "URI"},
	"RepositoryOwner":       {"id": "ID", "login": "String", "url": "URI", "avatarUrl": "URI"},
	"User":                  {"login": "String", "url": "URI", "avatarUrl": "URI", "id": "ID", "name": "String"},
	"Bot":                   {"login": "String", "url": "URI", "avatarUrl": "URI", "id": "ID"},
	"Organization":          {"login": "String", "url": "URI", "avatarUrl": "URI", "id": "ID", "name": "String"},
	"Mannequin":             {"login": "String", "url": "URI", "avatarUrl": "URI", "id": "ID"},
	"EnterpriseUserAccount": {"login": "String", "url": "URI", "avatarUrl": "URI", "id": "ID", "name": "String"},
	"PageInfo":              {"hasNextPage": "Boolean", "hasPreviousPage": "Boolean", "startCursor": "String", "endCursor": "String"},
	"RateLimit":             {"limit": "Int", "cost": "Int", "remaining": "Int", "used": "Int", "resetAt": "DateTime", "nodeCount": "Int"},
	"IssueOrPullRequest":    {},
}

// gqlAbstract are the interfaces and unions among gqlTypes, with the object
// types of the double's that implement them.
var gqlAbstract = map[string][]string{
	"IssueOrPullRequest": {"Issue", "PullRequest"},
	"Actor":              {"User", "Bot", "Organization", "Mannequin", "EnterpriseUserAccount"},
	"RepositoryOwner":    {"User", "Organization"},
}

// runtimeType is the object type v is, answering abstract type typ.
func runtimeType(typ string, v any) string {
	switch v := v.(type) {
	case *item:
		if v.pr == nil {
			return "Issue"
		}
		return "PullRequest"
	case string:
		if _, ok := gqlAbstract[typ]; ok {
			if strings.HasSuffix(v, "[bot]") && typ == "Actor" {
				return "Bot"
			}
			return "User"
		}
	}
	return typ
}

// fits reports whether a fragment on cond applies to an object of type typ.
func fits(cond, typ string) bool {
	return cond == typ || slices.Contains(gqlAbstract[cond], typ)
}

func (s *Server) graphql(c *call) answer {
	var in struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if a, ok := decode(c, &in); !ok {
		return a
	}
	sels, err := parseGQL(in.Query)
	if err != nil {
		return answer{status: 200, body: obj{"errors": []gqlError{{Message: err.Error()}}}}
	}
	if errs := checkGQL("Query", sels, []any{"query"}); len(errs) > 0 {
		return answer{status: 200, body: obj{"errors": errs}}
	}
	x := &gExec{s: s, c: c, vars: in.Variables}
	data := x.object("Query", nil, sels, nil)
	body := obj{"data": data}
	if len(x.errs) > 0 {
		body["errors"] = x.errs
	}
	return answer{status: 200, body: body}
}

// checkGQL refuses a field its type lacks, and a selection on a scalar or
// none on an object, as GitHub's validation does before running a query.
func checkGQL(typ string, sels []*gField, path []any) []gqlError {
	var errs []gqlError
	for _, f := range sels {
		p := append(append([]any{}, path...), f.name)
		loc := []obj{{"line": f.line, "column": f.col}}
		if f.name == "__typename" {
			continue
		}
		if f.name == "..." {
			if _, known := gqlTypes[f.on]; !known || !(fits(typ, f.on) || fits(f.on, typ)) {
				errs = append(errs, gqlError{Message: fmt.Sprintf("Fragment on %s can't be spread inside %s", f.on, typ), Path: p, Locations: loc,
					Extensions: map[string]any{"code": "cannotSpreadFragment", "typeName": f.on}})
				continue
			}
			errs = append(errs, checkGQL(f.on, f.sels, path)...)
			continue
		}
		ft, ok := gqlTypes[typ][f.name]
		if !ok {
			errs = append(errs, gqlError{Message: fmt.Sprintf("Field '%s' doesn't exist on type '%s'", f.name, typ), Path: p, Locations: loc,
				Extensions: map[string]any{"code": "undefinedField", "typeName": typ, "fieldName": f.name}})
			continue
		}
		ft = strings.Trim(ft, "[]")
		_, object := gqlTypes[ft]
		switch {
		case object && len(f.sels) == 0:
			errs = append(errs, gqlError{Message: fmt.Sprintf("Field must have selections (field '%s' returns %s but has no selections. Did you mean '%s { ... }'?)", f.name, ft, f.name),
				Path: p, Locations: loc, Extensions: map[string]any{"code": "selectionMismatch", "nodeName": "field '" + f.name + "'", "typeName": ft}})
		case !object && len(f.sels) > 0:
			errs = append(errs, gqlError{Message: fmt.Sprintf("Selections can't be made on scalars (field '%s' returns %s but has selections [%s])", f.name, ft, names(f.sels)),
				Path: p, Locations: loc, Extensions: map[string]any{"code": "selectionMismatch", "nodeName": "field '" + f.name + "'", "typeName": ft}})
		case object:
			errs = append(errs, checkGQL(ft, f.sels, p)...)
		}
	}
	return errs
}

func names(fs []*gField) string {
	var ns []string
	for _, f := range fs {
		ns = append(ns, f.name)
	}
	return strings.Join(ns, ", ")
}

type gExec struct {
	s    *Server
	c    *call
	vars map[string]any
	errs []gqlError
}

func (x *gExec) arg(f *gField, name string) any {
	v := f.args[name]
	if name, ok := v.(gVar); ok {
		return x.vars[string(name)]
	}
	return v
}

func (x *gExec) intArg(f *gField, name string) (int, bool) {
	switch v := x.arg(f, name).(type) {
	case float64:
		return int(v), true
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	}
	return 0, false
}

func (x *gExec) object(typ string, v any, sels []*gField, path []any) obj {
	out := obj{}
	typ = runtimeType(typ, v)
	for _, f := range sels {
		p := append(append([]any{}, path...), f.key())
		if f.name == "..." {
			if fits(f.on, typ) {
				for k, val := range x.object(typ, v, f.sels, path) {
					out[k] = val
				}
			}
			continue
		}
		if f.name == "__typename" {
			out[f.key()] = typ
			continue
		}
		val, ok := x.resolve(typ, v, f, p)
		ft := gqlTypes[typ][f.name]
		elem := strings.Trim(ft, "[]")
		_, object := gqlTypes[elem]
		if ok && !object {
			x.checkScalar(typ, f.name, elem, val)
		}
		switch {
		case !ok || val == nil || !object:
			out[f.key()] = val
		case strings.HasPrefix(ft, "["):
			list := []any{}
			for i, e := range val.([]any) {
				list = append(list, x.object(elem, e, f.sels, append(p, i)))
			}
			out[f.key()] = list
		default:
			out[f.key()] = x.object(elem, val, f.sels, p)
		}
	}
	return out
}

// conn is a page of a connection: its nodes and where they start.
type conn struct {
	nodes      []any
	from, all  int
	pageLength int
}

func cursor(i int) string {
	return base64.StdEncoding.EncodeToString([]byte("cursor:v2:" + strconv.Itoa(i)))
}

func uncursor(c string) int {
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), "cursor:v2:"))
	if err != nil {
		return -1
	}
	return n
}

// page slices all by first and after, or fails as GitHub does without a
// boundary.
func (x *gExec) page(f *gField, all []any, path []any) (conn, bool) {
	first, ok := x.intArg(f, "first")
	if !ok || first < 0 || first > 100 {
		x.errs = append(x.errs, gqlError{Type: "MISSING_PAGINATION_BOUNDARIES", Path: path,
			Locations: []obj{{"line": f.line, "column": f.col}},
			Message:   fmt.Sprintf("You must provide a `first` or `last` value to properly paginate the `%s` connection.", f.name)})
		return conn{}, false
	}
	from := 0
	if a, ok := x.arg(f, "after").(string); ok && a != "" {
		from = uncursor(a) + 1
	}
	from = min(max(from, 0), len(all))
	to := min(from+first, len(all))
	return conn{nodes: all[from:to], from: from, all: len(all), pageLength: to - from}, true
}
