package agent

import (
	"regexp"
	"strconv"
	"time"
)

// stdoutRateLimit matches rate-limit wording narrow enough to trust in an
// agent's error text or stdout, where the assistant's own prose may mention
// "rate limit" in passing (patterns after ralphctl).
var stdoutRateLimit = regexp.MustCompile(`(?i)usage limit reached|rate.?limit exceeded|rate_limit_error|rate_limit_exceeded|overloaded_error|\b5-hour limit\b|"status"\s*:\s*429|you've hit your (usage )?limit|exhausted your (daily )?quota|RESOURCE_EXHAUSTED`)

// stderrRateLimit is the broader pattern, for stderr only.
var stderrRateLimit = regexp.MustCompile(`(?i)rate.?limit|quota|\b429\b|too many requests|usage limit`)

// overloadPattern marks a provider overload (retry later, not our fault).
var overloadPattern = regexp.MustCompile(`(?i)overloaded_error|\b529\b|overloaded`)

// transientPattern marks network and server failures worth a retry.
var transientPattern = regexp.MustCompile(`(?i)ECONNRESET|ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|connection (reset|refused)|network (error|is unreachable)|socket hang up|fetch failed|no such host|TLS handshake timeout|i/o timeout|temporary failure in name resolution|\b50[234]\b|service unavailable|bad gateway|gateway time-?out|APIConnectionError|ServiceUnavailableError|InternalServerError|stream disconnected`)

// claudeLimitReset matches Claude's old "Claude AI usage limit reached|<unix time>".
var claudeLimitReset = regexp.MustCompile(`usage limit reached\|(\d{9,11})`)

// usageLimitReset extracts a reset time from a usage-limit message.
func usageLimitReset(s string) (time.Time, bool) {
	m := claudeLimitReset.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	sec, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(sec, 0).UTC(), true
}
