package ghdouble

import (
	"fmt"
	"slices"
)

// gqlEnums are the values of the enums among gqlTypes' fields, as GitHub's
// GraphQL schema defines them.
var gqlEnums = map[string][]string{
	"PullRequestState":                   {"OPEN", "CLOSED", "MERGED"},
	"IssueState":                         {"OPEN", "CLOSED"},
	"MergeableState":                     {"MERGEABLE", "CONFLICTING", "UNKNOWN"},
	"DiffSide":                           {"LEFT", "RIGHT"},
	"PullRequestReviewThreadSubjectType": {"LINE", "FILE"},
	"CommentAuthorAssociation": {"MEMBER", "OWNER", "MANNEQUIN", "COLLABORATOR", "CONTRIBUTOR",
		"FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER", "NONE"},
}

// scalarFits reports whether v, answered for a field of scalar or enum type
// typ, is a value of it (null is left to the field's nullability, which the
// double does not model).
func scalarFits(typ string, v any) bool {
	if v == nil {
		return true
	}
	if values, ok := gqlEnums[typ]; ok {
		s, isString := v.(string)
		return isString && slices.Contains(values, s)
	}
	switch typ {
	case "Int":
		switch v.(type) {
		case int, int64:
			return true
		}
		return false
	case "Boolean":
		_, ok := v.(bool)
		return ok
	case "String", "ID", "URI", "DateTime", "GitObjectID":
		_, ok := v.(string)
		return ok
	}
	return false
}

// checkScalar records an answer that breaks the type of the field it
// answers, as a violation of GitHub's schema.
func (x *gExec) checkScalar(typ, field, ft string, v any) {
	if !scalarFits(ft, v) {
		x.s.bad = append(x.s.bad, fmt.Sprintf("POST /graphql: %s.%s answered %v (%T), not a %s", typ, field, v, v, ft))
	}
}
