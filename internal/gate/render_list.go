package gate

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/textcut"
)

// listItems writes items as numbered lines "N. KIND id (file:line): message"
// from number n+1 within budget runes; locations are never cut, messages are,
// and "(+K more; full log: PATH)" ends a list the budget cut. all reports
// whether every item was written with its whole message.
func listItems(items []item, n, budget int, logPath string, first bool) (string, bool) {
	var b strings.Builder
	used := 0
	all := true
	write := func(line string) {
		b.WriteString(line + "\n")
		used += utf8.RuneCountInString(line) + 1
	}
	for i, it := range items {
		footer := footerFor(len(items)-i-1, "") // the log path is added when it fits
		room := budget - used - utf8.RuneCountInString(footer) - 1
		prefix, msg := itemParts(n+i+1, it.f)
		if it.n > 1 {
			prefix = strings.TrimSuffix(prefix, ": ") + fmt.Sprintf(" ×%d: ", it.n)
		}
		need := utf8.RuneCountInString(prefix) + utf8.RuneCountInString(msg) + 1
		switch {
		case need <= room:
		case (i == 0 && first) || room >= utf8.RuneCountInString(prefix)+20:
			msg = textcut.Runes(msg, max(room-utf8.RuneCountInString(prefix)-1, 30))
			all = false
		default:
			more := footerFor(len(items)-i, logPath)
			if budget-used < utf8.RuneCountInString(more)+1 {
				more = fmt.Sprintf("(+%d more)", len(items)-i)
			}
			write(more)
			return b.String(), false
		}
		write(prefix + msg)
	}
	return b.String(), all
}

func footerFor(more int, logPath string) string {
	if more <= 0 {
		return ""
	}
	if logPath == "" {
		return fmt.Sprintf("(+%d more)", more)
	}
	return fmt.Sprintf("(+%d more; full log: %s)", more, logPath)
}
