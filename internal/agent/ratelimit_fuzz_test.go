package agent

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// FuzzUsageLimitReset: any message gives a reset time only when it carries
// one of the usage-limit forms; Claude's old "usage limit reached|<unix
// seconds>" gives exactly that instant, a clock time without a day its next
// occurrence (after now, within a day).
func FuzzUsageLimitReset(f *testing.F) {
	f.Add("Claude AI usage limit reached|1767225600", int64(1_800_000_000))
	f.Add("usage limit reached|99999999999999999999", int64(0))
	f.Add("usage limit reached|", int64(0))
	f.Add("rate limit exceeded, try again later", int64(0))
	f.Add("You've hit your session limit · resets 2:50pm (UTC)", int64(1_800_000_000))
	f.Add("You've hit your weekly limit · resets Nov 28, 3pm (Europe/Paris)", int64(1_800_000_000))
	f.Add("You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 2:51 PM.", int64(1_800_000_000))
	f.Add("You’ve hit your usage limit. try again at Feb 30th, 2026 13:61 PM.", int64(-1))
	digits := regexp.MustCompile(`usage limit reached\|(\d{9,11})`)
	f.Fuzz(func(t *testing.T, msg string, sec int64) {
		now := time.Unix(sec%(1<<40), 0).UTC()
		at, ok := usageLimitReset(msg, now, time.UTC)
		if m := digits.FindStringSubmatch(msg); m != nil {
			want, _ := strconv.ParseInt(m[1], 10, 64)
			if !ok || at.Unix() != want || at.Location().String() != "UTC" {
				t.Fatalf("usageLimitReset(%q) = %v, %v; want unix %d in UTC", msg, at, ok, want)
			}
			return
		}
		c, x := claudeHitLimit().FindStringSubmatch(msg), codexHitLimit().FindStringSubmatch(msg)
		if ok && c == nil && x == nil {
			t.Fatalf("usageLimitReset(%q) = %v for a message of no usage-limit form", msg, at)
		}
		if ok && at.IsZero() {
			t.Fatalf("usageLimitReset(%q) gave no time", msg)
		}
		if ok && ((c != nil && c[1] == "") || (c == nil && x[1] == "")) {
			if !at.After(now) || at.After(now.Add(26*time.Hour)) {
				t.Fatalf("usageLimitReset(%q) at %v = %v: a clock time without a day must be its next occurrence", msg, now, at)
			}
		}
	})
}

// FuzzUsageLimitRoundTrip: a reset written as Claude Code 2.1.197 and Codex
// 0.169.0 write it (their format functions, in Go) reads back as the end of
// its minute.
func FuzzUsageLimitRoundTrip(f *testing.F) {
	f.Add(int64(1_800_000_000), int64(60), "UTC")
	f.Add(int64(1_800_000_000), int64(3*86400+7), "Europe/Paris")
	f.Add(int64(1_800_000_000), int64(400*86400), "America/New_York")
	f.Fuzz(func(t *testing.T, nowSec, ahead int64, zone string) {
		loc, err := time.LoadLocation(zone)
		if err != nil || zone == "" || zone == "Local" || !regexp.MustCompile(`^[A-Za-z0-9_+\-/]{1,64}$`).MatchString(zone) {
			return
		}
		now := time.Unix(1_700_000_000+nowSec%(1<<32), 0).In(loc)
		reset := now.Add(time.Duration(1+ahead%(500*86400)) * time.Second)
		if ahead < 0 {
			return
		}
		want := reset.Truncate(time.Minute).Add(time.Minute)
		claude := "You've hit your session limit · resets " + claudeTime(reset, now) + " (" + zone + ")"
		if got, ok := usageLimitReset(claude, now, time.UTC); !ok || !got.Equal(want) {
			t.Errorf("usageLimitReset(%q) at %v = %v, %v; want %v", claude, now, got, ok, want)
		}
		codex := "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at " + codexTime(reset, now) + "."
		if got, ok := usageLimitReset(codex, now, loc); !ok || !got.Equal(want) {
			t.Errorf("usageLimitReset(%q) at %v = %v, %v; want %v", codex, now, got, ok, want)
		}
	})
}

// claudeTime is Claude Code 2.1.197's reset time (its function Vee): the
// clock time within a day, else the day too, and the year when it is
// another; the minutes left out on the hour.
func claudeTime(t, now time.Time) string {
	clockFmt := "3:04pm"
	if t.Minute() == 0 {
		clockFmt = "3pm"
	}
	if t.Sub(now) <= 24*time.Hour {
		return t.Format(clockFmt)
	}
	if t.Year() != now.Year() {
		return t.Format("Jan 2, 2006, " + clockFmt)
	}
	return t.Format("Jan 2, " + clockFmt)
}

// codexTime is Codex 0.169.0's: the clock time on the same day, else
// "Nov 28th, 2026 2:51 PM".
func codexTime(t, now time.Time) string {
	if t.YearDay() == now.YearDay() && t.Year() == now.Year() {
		return t.Format("3:04 PM")
	}
	suffix := "th"
	switch d := t.Day(); {
	case d == 1 || d == 21 || d == 31:
		suffix = "st"
	case d == 2 || d == 22:
		suffix = "nd"
	case d == 3 || d == 23:
		suffix = "rd"
	}
	return fmt.Sprintf("%s %d%s, %d %s", t.Format("Jan"), t.Day(), suffix, t.Year(), t.Format("3:04 PM"))
}
