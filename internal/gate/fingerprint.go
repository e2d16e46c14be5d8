package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// FingerprintVersion prefixes every fingerprint's hashed input, so that changing
// the key or normalization rules never makes old and new fingerprints match.
const FingerprintVersion = "fp/v1"

var normRules = []struct {
	re   *regexp.Regexp
	repl string
}{
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

// Normalize masks what changes between runs of the same failure (numbers, hex,
// durations, timestamps, temp paths, goroutine and thread ids, ports, UUIDs),
// strips ANSI and collapses white space.
func Normalize(msg string) string {
	msg = strings.Join(strings.Fields(StripANSI(msg)), " ")
	for i, r := range normRules {
		if i == len(normRules)-2 { // before durations and numbers: hashes and ids
			msg = hexRE.ReplaceAllStringFunc(msg, maskHex)
		}
		msg = r.re.ReplaceAllString(msg, r.repl)
	}
	return msg
}

// isTestKind reports whether findings of kind k are keyed on the test id alone.
func isTestKind(k evidence.Kind) bool {
	return k == evidence.KindTest || k == evidence.KindCrash || k == evidence.KindTimeout
}

var hexRE = regexp.MustCompile(`\b[0-9a-fA-F]{7,}\b`)

// maskHex masks a long hex word that has both digits and letters (a hash or an id).
func maskHex(w string) string {
	if strings.ContainsAny(w, "0123456789") && strings.ContainsAny(strings.ToLower(w), "abcdef") {
		return "<hex>"
	}
	return w
}

var multiplicityRE = regexp.MustCompile(`#\d+$`)

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
		return multiplicityRE.ReplaceAllString(f.Key, "")
	}
	kind := strings.ToUpper(string(f.Kind))
	if isTestKind(f.Kind) && f.ID != "" {
		return kind + "|" + f.Tool + "|" + f.ID
	}
	return kind + "|" + f.Tool + "|" + f.ID + "|" + f.File + "|" + Normalize(f.Message)
}

// withMultiplicity sorts keys and appends "#k" to the k-th (k ≥ 2) of equal keys.
func withMultiplicity(keys []string) []string {
	out := append([]string(nil), keys...)
	sort.Strings(out)
	for i, run := 0, 1; i < len(out); i++ {
		if i > 0 && keys0(out, i) {
			run++
			out[i] += "#" + strconv.Itoa(run)
		} else {
			run = 1
		}
	}
	return out
}

func keys0(out []string, i int) bool {
	prev := multiplicityRE.ReplaceAllString(out[i-1], "")
	return prev == out[i]
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

// Fingerprint hashes the failures of one gate: sha256 over the version, the gate
// name and the sorted keys with their multiplicity, in hex. Flaky findings are
// left out; no failures give "".
func Fingerprint(gate string, fs []evidence.Finding) string {
	var keys []string
	for _, f := range fs {
		if !f.Flaky {
			keys = append(keys, baseKey(f))
		}
	}
	if len(keys) == 0 {
		return ""
	}
	sum := sha256.Sum256([]byte(FingerprintVersion + "\n" + gate + "\n" + strings.Join(withMultiplicity(keys), "\n")))
	return hex.EncodeToString(sum[:])
}
