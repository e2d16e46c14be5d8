package agent

import (
	"regexp"
	"strconv"
	"testing"
)

// FuzzUsageLimitReset: any message gives a reset time only when it carries the
// "usage limit reached|<unix seconds>" form, and then exactly that time.
func FuzzUsageLimitReset(f *testing.F) {
	f.Add("Claude AI usage limit reached|1767225600")
	f.Add("usage limit reached|99999999999999999999")
	f.Add("usage limit reached|")
	f.Add("rate limit exceeded, try again later")
	digits := regexp.MustCompile(`usage limit reached\|(\d{9,11})`)
	f.Fuzz(func(t *testing.T, msg string) {
		at, ok := usageLimitReset(msg)
		m := digits.FindStringSubmatch(msg)
		if ok != (m != nil) {
			t.Fatalf("usageLimitReset(%q) ok = %v, want %v", msg, ok, m != nil)
		}
		if ok {
			sec, _ := strconv.ParseInt(m[1], 10, 64)
			if at.Unix() != sec || at.Location().String() != "UTC" {
				t.Fatalf("usageLimitReset(%q) = %v, want unix %d in UTC", msg, at, sec)
			}
		}
	})
}
