package ghdouble

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// openapiJSON is the part of GitHub's OpenAPI description the double serves
// (testdata/README.md says from which commit, and how it was trimmed).
//
//go:embed testdata/openapi.json
var openapiJSON []byte

type schema = map[string]any

var description = sync.OnceValues(func() (schema, error) {
	var d schema
	if err := json.Unmarshal(openapiJSON, &d); err != nil {
		return nil, fmt.Errorf("read the embedded OpenAPI description: %w", err)
	}
	return d, nil
})

// anyOperation are the statuses GitHub answers on any operation, which its
// description documents on some only: an API version it does not serve
// (400), a bad or missing token (401), a spent rate limit or a missing
// permission (403), a secondary rate limit (429), a conditional request's
// 304, and its own failures.
var anyOperation = map[int]bool{304: true, 400: true, 401: true, 403: true, 429: true, 500: true, 502: true, 503: true, 504: true}

// checkAnswer checks an answer against GitHub's description: "" when the
// status is one the operation documents and the body fits its schema, else
// what breaks it.
func checkAnswer(method, tmpl string, status int, body []byte) string {
	d, err := description()
	if err != nil {
		return err.Error()
	}
	op, _ := dig(d, "paths", tmpl, method).(schema)
	if op == nil {
		return fmt.Sprintf("the description has no operation %s %s", strings.ToUpper(method), tmpl)
	}
	resp, documented := dig(op, "responses", strconv.Itoa(status)).(schema)
	if !documented {
		if !anyOperation[status] {
			return fmt.Sprintf("status %d is not one the description documents for %s %s", status, strings.ToUpper(method), tmpl)
		}
		resp = schema{"content": schema{"application/json": schema{"schema": schema{"$ref": "#/components/schemas/basic-error"}}}}
		if status == 304 || status >= 502 {
			resp = schema{}
		}
	}
	resp = resolve(d, resp)
	sch, _ := dig(resp, "content", "application/json", "schema").(schema)
	switch {
	case sch == nil && len(body) > 0:
		return fmt.Sprintf("a body where the description documents none: %.80s", body)
	case sch == nil:
		return ""
	case len(body) == 0:
		return "no body where the description documents one"
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Sprintf("the body is not JSON: %v", err)
	}
	errs := validate(d, sch, v, "$")
	if len(errs) > 3 {
		errs = append(errs[:3], fmt.Sprintf("and %d more", len(errs)-3))
	}
	return strings.Join(errs, "; ")
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(schema)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// resolve follows s's $ref within the description d.
func resolve(d, s schema) schema {
	for i := 0; i < 20; i++ {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		parts := strings.Split(strings.TrimPrefix(ref, "#/"), "/")
		next, _ := dig(d, parts...).(schema)
		if next == nil {
			return schema{"x-unresolved": ref}
		}
		s = next
	}
	return s
}

// validate checks v against the JSON Schema subset GitHub's description
// uses: type, nullable, enum, properties, required, items,
// additionalProperties, allOf, anyOf and oneOf (taken as anyOf: the
// description's alternatives overlap, as private-user and public-user do);
// format is not checked. A property the schema does not name is an error
// unless additionalProperties allows it: the double sends nothing GitHub's
// description does not describe.
func validate(d, s schema, v any, at string) []string {
	s = resolve(d, s)
	if ref, ok := s["x-unresolved"].(string); ok {
		return []string{fmt.Sprintf("%s: the description has no %s", at, ref)}
	}
	if v == nil {
		if s["nullable"] == true || len(s) == 0 {
			return nil
		}
		if alts, ok := s["oneOf"].([]any); ok && anyNullable(d, alts) {
			return nil
		}
		return []string{at + ": null where the description allows none"}
	}
	if all, ok := s["allOf"].([]any); ok {
		var errs []string
		for _, a := range all {
			errs = append(errs, validate(d, a.(schema), v, at)...)
		}
		return errs
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		alts, ok := s[key].([]any)
		if !ok {
			continue
		}
		var first []string
		for _, a := range alts {
			errs := validate(d, a.(schema), v, at)
			if len(errs) == 0 {
				return nil
			}
			if first == nil {
				first = errs
			}
		}
		return append([]string{fmt.Sprintf("%s: fits none of the %s alternatives", at, key)}, first...)
	}
	if t, ok := s["type"].(string); ok && !hasType(t, v) {
		return []string{fmt.Sprintf("%s: %s where the description says %s", at, kind(v), t)}
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		return []string{fmt.Sprintf("%s: %v is not one of %v", at, v, enum)}
	}
	switch v := v.(type) {
	case map[string]any:
		return validateObject(d, s, v, at)
	case []any:
		items, _ := s["items"].(schema)
		var errs []string
		for i, e := range v {
			if items != nil {
				errs = append(errs, validate(d, items, e, fmt.Sprintf("%s[%d]", at, i))...)
			}
		}
		return errs
	}
	return nil
}

func anyNullable(d schema, alts []any) bool {
	for _, a := range alts {
		if resolve(d, a.(schema))["nullable"] == true {
			return true
		}
	}
	return false
}

func validateObject(d, s schema, v map[string]any, at string) []string {
	var errs []string
	props, _ := s["properties"].(schema)
	req, _ := s["required"].([]any)
	for _, r := range req {
		if _, ok := v[r.(string)]; !ok {
			errs = append(errs, fmt.Sprintf("%s: required property %q is missing", at, r))
		}
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if p, ok := props[k].(schema); ok {
			errs = append(errs, validate(d, p, v[k], at+"."+k)...)
			continue
		}
		switch extra := s["additionalProperties"].(type) {
		case schema:
			errs = append(errs, validate(d, extra, v[k], at+"."+k)...)
		case bool:
			if !extra {
				errs = append(errs, fmt.Sprintf("%s: property %q is not in the description", at, k))
			}
		default:
			if props != nil {
				errs = append(errs, fmt.Sprintf("%s: property %q is not in the description", at, k))
			}
		}
	}
	return errs
}

func hasType(t string, v any) bool {
	switch v := v.(type) {
	case map[string]any:
		return t == "object"
	case []any:
		return t == "array"
	case string:
		return t == "string"
	case bool:
		return t == "boolean"
	case json.Number:
		if t == "number" {
			return true
		}
		_, err := v.Int64()
		return t == "integer" && err == nil
	}
	return false
}

func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
