package decide

import (
	"regexp"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
)

// concernPhrases are the words by which a reviewer's finding names one of the
// seeds' four immediate triggers without its tag. Each pattern is a phrase
// that names the problem itself, not a topic: "architecture" alone is no
// architectural impact, "security" alone no vulnerability.
// They compile on first use.
var concernPhrases = sync.OnceValue(func() []concernPhrase {
	return []concernPhrase{
		{decision.TriggerSecurity, regexp.MustCompile(`(?i)\b(` +
			`(sql|command|shell|code|ldap|xpath|template|header|log) injection|injection (attack|vulnerabilit\w*|flaw|risk)|` +
			`cross[- ]site (scripting|request forgery)|\bxss\b|\bcsrf\b|\bssrf\b|remote code execution|\brce\b|` +
			`(path|directory) traversal|privilege escalation|auth(entication|orization)? bypass|bypass(es)? (the )?auth\w*|` +
			`security (hole|flaw|issue|problem|risk|vulnerabilit\w*|bug|concern|impact)|vulnerab\w*|exploitable|` +
			`(hard[- ]?coded|leak(s|ed|ing)?|exposes?|logs?|logging|plain ?text) (the )?(secret|password|credential|api key|token|private key)s?|` +
			`(unsanitized|unescaped|unvalidated) (user )?input|user input is (concatenated|interpolated|inserted))`)},
		{decision.TriggerScopeCreep, regexp.MustCompile(`(?i)\b(` +
			`scope creep|out of (the task's )?scope|outside (of )?(the )?(task'?s? )?scope|beyond (the )?(task'?s? )?scope|scope change|` +
			`not part of (the|this) task|(the task|nobody|no one) (did not|didn't|never) ask(ed)? for|not (what|something) the task asked|` +
			`unrelated (change|refactor|rewrite|feature)s?|unrequested (change|feature|refactor)s?)`)},
		{decision.TriggerArchitecture, regexp.MustCompile(`(?i)\b(` +
			`architectural (impact|change|concern|problem|issue|violation|decision)|` +
			`(changes|alters|breaks|violates|bypasses|restructures) the (\w+ )?(architecture|layering|module boundar\w+|layers?)|` +
			`architecture (change|violation)|layering violation|circular (dependency|import)|import cycle|` +
			`breaking change to the public api|breaks the public api)`)},
		{decision.TriggerConflict, regexp.MustCompile(`(?i)\b(` +
			`conflicting (requirements?|specs?|specifications?|tests)|requirements? (conflict|contradict)\w*|` +
			`contradict\w* (the |each )?(other |)(requirements?|spec\w*|tests?)|(tests?|spec\w*) contradict\w*|` +
			`(cannot|can't|can not) (both )?satisfy both|mutually exclusive (requirements?|tests?)|` +
			`(the spec\w*|the tests?) and the (spec\w*|tests?) (disagree|contradict\w*))`)},
	}
})

// concernPhrase is the phrase pattern of one trigger.
type concernPhrase struct {
	id string
	re *regexp.Regexp
}

// negated reports whether the phrase at s[i:] is denied within its clause:
// "no security impact", "this is not a scope change", "without any injection
// risk".
var negator = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(no|not|without|never|nor|isn't|aren't|doesn't|don't|didn't|wasn't|free of|rather than|instead of)\b`)
})

func negated(s string, i int) bool {
	clause := s[:i]
	if j := strings.LastIndexAny(clause, ".;!?\n"); j >= 0 {
		clause = clause[j+1:]
	}
	if j := strings.LastIndex(clause, " but "); j >= 0 {
		clause = clause[j+len(" but "):]
	}
	return negator().MatchString(clause)
}

// concernNamed returns the reviewer's first blocker or major finding whose
// words name the trigger id (security, scope creep, architectural impact,
// conflicting requirements), when it carries no tag for it: a blocker saying
// "SQL injection: user input is concatenated into the SQL string" is a
// security concern whatever its tags. Minor findings and nits never are.
func concernNamed(r *evidence.Review, id string) (evidence.ReviewFinding, bool) {
	if r == nil {
		return evidence.ReviewFinding{}, false
	}
	for _, w := range concernPhrases() {
		if w.id != id {
			continue
		}
		for _, fd := range r.Findings {
			if fd.Severity != "blocker" && fd.Severity != "major" {
				continue
			}
			for _, m := range w.re.FindAllStringIndex(fd.Message, -1) {
				if !negated(fd.Message, m[0]) {
					return fd, true
				}
			}
		}
	}
	return evidence.ReviewFinding{}, false
}

// reviewConcern reports whether the reviewer raised the trigger id, by its
// tag or by the words of a blocker or major finding, and the finding to
// quote: the one whose words name it, else the one mentioning word, else the
// summary.
func reviewConcern(ev evidence.Iteration, id, word string) (string, bool) {
	if fd, ok := concernNamed(ev.Review, id); ok {
		return clip(fd.Message, 160), true
	}
	if reviewTag(ev, id) {
		return reviewQuote(ev, word), true
	}
	return "", false
}
