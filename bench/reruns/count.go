package main

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	countedRE  = regexp.MustCompile(`\+(\d+)(?: more|\})|(\d+) tests?\b`)
	numberedRE = regexp.MustCompile(`^\d+\. `)
	causeRE    = regexp.MustCompile(`^\d+ tests alike`)
	parentRE   = regexp.MustCompile(`[^,{]+\{`)
)

// accounted counts the failing tests a feedback names or counts: a numbered
// line is one; under "Failing tests:", each name and each count ("+3 more",
// "{a, +2}", "7 tests", "(+10 more tests in 2 packages)").
func accounted(feedback string) int {
	n := 0
	names := false
	for _, line := range strings.Split(feedback, "\n") {
		switch {
		case numberedRE.MatchString(line):
			n++
		case line == "Failing tests:":
			names = true
		case names && (strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "(+")):
			list := line
			if _, l, ok := strings.Cut(line, ": "); ok && strings.HasPrefix(line, "- ") {
				list = l
			}
			for _, m := range countedRE.FindAllStringSubmatch(list, -1) {
				k, _ := strconv.Atoi(m[1] + m[2])
				n += k
			}
			if strings.HasPrefix(line, "(+") {
				continue
			}
			list = parentRE.ReplaceAllString(countedRE.ReplaceAllString(list, ""), "")
			for _, name := range strings.Split(list, ",") {
				if strings.Trim(name, " {}") != "" {
					n++
				}
			}
		}
	}
	return n
}

// causesShown counts the causes a feedback shows: shared ones and numbered
// distinct messages.
func causesShown(feedback string) int {
	n := 0
	for _, line := range strings.Split(feedback, "\n") {
		if causeRE.MatchString(line) || numberedRE.MatchString(line) {
			n++
		}
	}
	return n
}
