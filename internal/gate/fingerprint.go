package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/textcut"
)

// FingerprintVersion prefixes every fingerprint's hashed input, so that changing
// the key or normalization rules never makes old and new fingerprints match.
const FingerprintVersion = "fp/v1"

// normRule masks what a regexp matches with repl.
type normRule struct {
	re   *regexp.Regexp
	repl string
}

var normRules = sync.OnceValue(func() []normRule {
	return []normRule{
		{regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`), "<uuid>"},
		{regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?`), "<time>"},
		{regexp.MustCompile(`\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?`), "<time>"},
		{regexp.MustCompile(`(/tmp|/var/folders|/private/var/folders|/var/tmp)/\S*|\S*go-build\d+\S*|\S*[/\\]Temp[/\\]\S*`), "<tmp>"},
		{regexp.MustCompile(`\b(goroutine|Goroutine) \d+`), "$1 N"},
		{regexp.MustCompile(`(thread '[^']*') \(\d+\)`), "$1"},
		{regexp.MustCompile(`\b(127\.\d+\.\d+\.\d+|localhost|0\.0\.0\.0|\[::1?\]):\d+`), "<addr>"},
		{regexp.MustCompile(`\b0x[0-9a-fA-F]+\b`), "0x?"},
		{regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s|m|h)\b`), "<dur>"},
		{regexp.MustCompile(`\b\d+(\.\d+)?\b`), "N"},
	}
})

// Normalize masks what changes between runs of the same failure (numbers, hex,
// durations, timestamps, temp paths, goroutine and thread ids, ports, UUIDs),
// strips ANSI and collapses white space.
func Normalize(msg string) string {
	msg = textcut.Line(StripANSI(msg))
	rules := normRules()
	for i, r := range rules {
		if i == len(rules)-2 { // before durations and numbers: hashes and ids
			msg = hexRE().ReplaceAllStringFunc(msg, maskHex)
		}
		msg = r.re.ReplaceAllString(msg, r.repl)
	}
	return msg
}

// isTestKind reports whether findings of kind k are keyed on the test id alone.
func isTestKind(k evidence.Kind) bool {
	return k == evidence.KindTest || k == evidence.KindCrash || k == evidence.KindTimeout
}

var hexRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[0-9a-fA-F]{7,}\b`) })

// maskHex masks a long hex word that has both digits and letters (a hash or an id).
func maskHex(w string) string {
	if strings.ContainsAny(w, "0123456789") && strings.ContainsAny(strings.ToLower(w), "abcdef") {
		return "<hex>"
	}
	return w
}

var multiplicityRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`#\d+$`) })

// Key is a finding's fingerprint key. It has no line or column, so code moving up
// or down does not change it. A test failure is KIND|tool|id (its message is left
// out: it often holds values that change between runs); any other finding is
// KIND|tool|rule|file|normalized message. A key already set by [Judge] (which
// adds "#k" to the k-th duplicate) is returned as it is.
func Key(f evidence.Finding) string {
	if f.Key != "" {
		return f.Key
	}
	return baseKey(f)
}

func baseKey(f evidence.Finding) string {
	if f.Key != "" {
		return multiplicityRE().ReplaceAllString(f.Key, "")
	}
	kind := strings.ToUpper(string(f.Kind))
	if isTestKind(f.Kind) && f.ID != "" {
		return kind + "|" + f.Tool + "|" + f.ID
	}
	return kind + "|" + f.Tool + "|" + f.ID + "|" + f.File + "|" + Normalize(f.Message)
}

// assignKeys sets each finding's Key, numbering duplicates; the order of fs is kept.
func assignKeys(fs []evidence.Finding) {
	idx := make([]int, len(fs))
	for i := range fs {
		idx[i] = i
		fs[i].Key = baseKey(fs[i])
	}
	sort.SliceStable(idx, func(a, b int) bool { return fs[idx[a]].Key < fs[idx[b]].Key })
	run := 1
	for j := 1; j < len(idx); j++ {
		if fs[idx[j]].Key == baseKey(fs[idx[j-1]]) {
			run++
			fs[idx[j]].Key += "#" + strconv.Itoa(run)
		} else {
			run = 1
		}
	}
}

// Fingerprint hashes a set of failure keys (from [Key]; duplicates keep their
// "#k"): sha256 over the version, the scope and the sorted keys, in hex. A gate's
// result is fingerprinted with the gate's name as scope, an iteration's failures
// over all gates with the scope "". No keys give "".
func Fingerprint(scope string, keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	sum := sha256.Sum256([]byte(FingerprintVersion + "\n" + scope + "\n" + strings.Join(sorted, "\n")))
	return hex.EncodeToString(sum[:])
}

// Label names a failure key for people: the test or rule id, with the file and
// the message for findings keyed on them, and the gate for a failure nothing
// parsed. It reads keys of any version: an unknown shape is returned as it is.
func Label(key string) string {
	k, _, _ := strings.Cut(key, "#")
	parts := strings.Split(k, "|")
	switch {
	case len(parts) >= 3 && parts[0] == "GATE" && strings.HasPrefix(parts[2], "timeout="):
		return fmt.Sprintf("gate %s (timed out after %s)", parts[1], strings.TrimPrefix(parts[2], "timeout="))
	case len(parts) >= 3 && parts[0] == "GATE":
		return fmt.Sprintf("gate %s (%s, no parsable failure)", parts[1], strings.Replace(parts[2], "=", " ", 1))
	case len(parts) >= 5:
		msg := textcut.Runes(strings.Join(parts[4:], "|"), 60)
		if parts[3] == "" {
			return parts[2] + ": " + msg
		}
		return parts[3] + ": " + msg
	case len(parts) >= 3:
		return parts[2]
	}
	return key
}
