package agent

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// stdoutRateLimit matches rate-limit wording narrow enough to trust in an
// agent's error text or stdout, where the assistant's own prose may mention
// "rate limit" in passing (patterns after ralphctl).
var stdoutRateLimit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)usage limit reached|rate.?limit exceeded|rate_limit_error|rate_limit_exceeded|overloaded_error|\b5-hour limit\b|"status"\s*:\s*429|you['’]ve hit your ([a-z0-9' ]{0,40} )?limit|exhausted your (daily )?quota|RESOURCE_EXHAUSTED`)
})

// stderrRateLimit is the broader pattern, for stderr only.
var stderrRateLimit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)rate.?limit|quota|\b429\b|too many requests|usage limit`)
})

// overloadPattern marks a provider overload (retry later, not our fault).
var overloadPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)overloaded_error|\b529\b|overloaded`) })

// transientPattern marks network and server failures worth a retry.
var transientPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)ECONNRESET|ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|connection (reset|refused)|network (error|is unreachable)|socket hang up|fetch failed|no such host|TLS handshake timeout|i/o timeout|temporary failure in name resolution|\b50[234]\b|service unavailable|bad gateway|gateway time-?out|APIConnectionError|ServiceUnavailableError|InternalServerError|stream disconnected`)
})

// claudeLimitReset matches Claude's old "Claude AI usage limit reached|<unix time>".
var claudeLimitReset = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`usage limit reached\|(\d{9,11})`) })

// claudeHitLimit matches Claude Code's message when a subscription's usage
// limit is reached (2.1.197: "You've hit your session limit · resets 2:50pm
// (UTC)"; a reset more than a day ahead also names the day, "resets Nov 28,
// 3pm (Europe/Paris)", and the year when it is another). The time is the
// reset's, in the zone named, to the minute.
var claudeHitLimit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)you['’]ve hit your [^·\n]{0,80}limit · resets ` +
		`(?:([a-z]{3}) (\d{1,2}), (?:(\d{4}), )?)?(\d{1,2})(?::(\d{2}))?[ \x{202f}]?([ap]m)(?: \(([A-Za-z0-9_+\-/]{1,64})\))?`)
})

// codexHitLimit matches Codex's message when a ChatGPT plan's usage limit is
// reached (0.169.0: "You’ve hit your usage limit. Upgrade to Pro (…), visit
// … or try again at 2:51 PM."; another day: "try again at Nov 28th, 2026 2:51
// PM."). The time is the reset's in the machine's zone, to the minute.
var codexHitLimit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)you['’]ve hit your usage limit\b[^\n]{0,400}?try again at ` +
		`(?:([a-z]{3}) (\d{1,2})(?:st|nd|rd|th)?, (\d{4}) )?(\d{1,2}):(\d{2})[ \x{202f}]?([ap]m)`)
})

// usageLimitReset extracts the reset time from a usage-limit message, as of
// now: Claude's old form carries the instant; Claude Code's and Codex's
// current ones a clock time to the minute, read as the end of that minute (the
// limit has surely reset by then) in the zone the message names, else in loc.
// A clock time without a day is its next occurrence.
func usageLimitReset(s string, now time.Time, loc *time.Location) (time.Time, bool) {
	if m := claudeLimitReset().FindStringSubmatch(s); m != nil {
		sec, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return time.Time{}, false
		}
		return time.Unix(sec, 0).UTC(), true
	}
	if m := claudeHitLimit().FindStringSubmatch(s); m != nil {
		if m[7] != "" {
			if l, err := time.LoadLocation(m[7]); err == nil {
				loc = l
			}
		}
		return clockReset(now.In(loc), m[1], m[2], m[3], m[4], m[5], m[6])
	}
	if m := codexHitLimit().FindStringSubmatch(s); m != nil {
		return clockReset(now.In(loc), m[1], m[2], m[3], m[4], m[5], m[6])
	}
	return time.Time{}, false
}

// clockReset is the end of the minute a message names (month, day and year
// optional; a 12-hour clock), in now's zone.
func clockReset(now time.Time, month, day, year, hour, minute, ampm string) (time.Time, bool) {
	h, _ := strconv.Atoi(hour)
	mi := 0
	if minute != "" {
		mi, _ = strconv.Atoi(minute)
	}
	if h < 1 || h > 12 || mi > 59 {
		return time.Time{}, false
	}
	h %= 12
	if strings.EqualFold(ampm, "pm") {
		h += 12
	}
	if month == "" {
		t := time.Date(now.Year(), now.Month(), now.Day(), h, mi, 0, 0, now.Location()).Add(time.Minute)
		if !t.After(now) {
			t = time.Date(now.Year(), now.Month(), now.Day()+1, h, mi, 0, 0, now.Location()).Add(time.Minute)
		}
		return t, true
	}
	mo, err := time.Parse("Jan", strings.ToUpper(month[:1])+strings.ToLower(month[1:]))
	if err != nil {
		return time.Time{}, false
	}
	d, _ := strconv.Atoi(day)
	y := now.Year()
	if year != "" {
		y, _ = strconv.Atoi(year)
	}
	if d < 1 || d > 31 {
		return time.Time{}, false
	}
	return time.Date(y, mo.Month(), d, h, mi, 0, 0, now.Location()).Add(time.Minute), true
}

// clock is a parser's clock for the reset times messages name: a message
// without a zone is read in the zone of the time it gives (nil: time.Now, in
// the machine's zone).
type clock func() time.Time

// reset reads the reset time of a usage-limit message as of now.
func (c clock) reset(s string) (time.Time, bool) {
	now := time.Now
	if c != nil {
		now = c
	}
	t := now()
	return usageLimitReset(s, t, t.Location())
}
