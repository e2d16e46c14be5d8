package gate

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// A jest or vitest failure pasted short, as a person or another tool writes
// it into a document: "FAIL src/auth/login.test.ts", then the assertion's
// lines ("Expected: …", "Received: …") without the "● a › b" header that
// names the test. Such lines are a failure of that file; [expectationHint]
// words what its two values say to change.

// assertLineRE is a line of an assertion's report: jest's Expected/Received
// pair (and its "Expected value:", "Received length:" kin), vitest's "-
// Expected" and "+ Received" diff header, an expect(…) call, chai's and
// node's AssertionError.
var assertLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:[-+] )?(?:Expected|Received)(?: [a-z]+)*:|^\s*expect\(|^\s*AssertionError\b`)
})

// isAssertLine reports whether a line of a test output reports an assertion.
func isAssertLine(line string) bool { return assertLineRE().MatchString(line) }

var (
	expectedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Expected(?: value)?:\s*(.+)$`) })
	receivedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Received(?: value)?:\s*(.*)$`) })
	// containRE is an expectation that a value holds a member: "token to
	// contain userId", "user to have property 'id'".
	containRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\w[\w.]*) to (?:contain|have|include)(?: property)? ['"]?(\w+)['"]?$`)
	})
	// expectOfRE is the value an expect(…) call is about, by its last name:
	// expect(decoded.userId) is about userId.
	expectOfRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`expect\(\s*(?:\w+\.)*(\w+)\s*\)`) })
	// memberRE is one "key: value" of a flat object literal, the value a
	// quoted string or a bare word.
	memberRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`["']?(\w+)["']?\s*:\s*("[^"]*"|'[^']*'|[^,{}\s]+)`) })
	numberRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?\d+(?:\.\d+)?$`) })
	nothingRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:|undefined|null|nil|<nil>|None)$`) })
)

// expectationHint words what an assertion's Expected and Received lines
// (among the lines of a failure's message) say to change, or "" when they
// say nothing plainer than themselves:
//
//   - "token must contain userId (received undefined)" for an expectation
//     that a value holds a member that came back as nothing;
//   - `userId must be the number 123, not the string "123"` for a value, bare
//     or a member of an object, of the wrong type.
func expectationHint(lines []string) string {
	var exp, rec, field string
	haveRec := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if m := expectOfRE().FindStringSubmatch(t); m != nil && m[1] != "received" && m[1] != "expected" && field == "" {
			field = m[1]
		}
		if m := expectedRE().FindStringSubmatch(t); m != nil && exp == "" {
			exp = strings.TrimSpace(m[1])
		} else if m := receivedRE().FindStringSubmatch(t); m != nil && exp != "" && !haveRec {
			rec, haveRec = strings.TrimSpace(m[1]), true
		}
	}
	if exp == "" || !haveRec {
		return ""
	}
	if m := containRE().FindStringSubmatch(exp); m != nil && nothingRE().MatchString(rec) {
		return fmt.Sprintf("%s must contain %s (received %s)", m[1], m[2], orWord(rec, "nothing"))
	}
	if h := typeHint(field, exp, rec); h != "" {
		return h
	}
	if strings.HasPrefix(exp, "{") && strings.HasPrefix(rec, "{") {
		want, got := members(exp), members(rec)
		var hints []string
		for _, kv := range want {
			if v, ok := lookup(got, kv[0]); ok {
				if h := typeHint(kv[0], kv[1], v); h != "" {
					hints = append(hints, h)
				}
			}
		}
		return strings.Join(hints, "; ")
	}
	return ""
}

// typeHint words a value expected as a number and received as the same
// number in quotes, or the other way round; "" for any other pair.
func typeHint(field, exp, rec string) string {
	e, eq := unquote(exp)
	r, rq := unquote(rec)
	if e != r || eq == rq || !numberRE().MatchString(e) {
		return ""
	}
	kind := func(s string, quoted bool) string {
		if quoted {
			return "the string " + s
		}
		return "the number " + s
	}
	return fmt.Sprintf("%s must be %s, not %s", orWord(field, "the value"), kind(exp, eq), kind(rec, rq))
}

// unquote strips one pair of matching quotes; quoted says whether it did.
func unquote(s string) (v string, quoted bool) {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1], true
	}
	return s, false
}

// members are the "key: value" pairs of a flat object literal, in order.
func members(obj string) [][2]string {
	var out [][2]string
	for _, m := range memberRE().FindAllStringSubmatch(obj, 50) {
		out = append(out, [2]string{m[1], m[2]})
	}
	return out
}

func lookup(kvs [][2]string, key string) (string, bool) {
	for _, kv := range kvs {
		if kv[0] == key {
			return kv[1], true
		}
	}
	return "", false
}

func orWord(s, word string) string {
	if s == "" {
		return word
	}
	return s
}
