package prompt

import (
	"fmt"
	"strings"
)

// strategy renders what the chosen strategy asks of this iteration, with the
// lessons of earlier attempts and the one failure to focus on.
func strategy(d Data) string {
	var b strings.Builder
	switch d.Strategy {
	case "refine":
		b.WriteString("# Strategy: refine\n\nThe previous iteration's change did not pass. Do not start over: keep what works and fix the problems in the feedback above, the most severe first. If a failure is the same as before, the last fix was wrong; find the real cause instead of repeating it.")
	case "expand":
		b.WriteString("# Strategy: expand\n\nEarlier attempts lacked context. Before you change code, read what the errors point to and understand how it fits together.")
		if len(d.Expand) > 0 {
			b.WriteString(" Start with:\n")
			for _, e := range d.Expand {
				fmt.Fprintf(&b, "\n- %s", e)
			}
		}
	case "simplify":
		b.WriteString("# Strategy: simplify\n\nEarlier attempts got stuck, and the work tree was reset to the best state reached so far. Take a simpler, different approach than before: the smallest change that makes progress, one problem at a time.")
	case "retry", "":
		// the same prompt again; lessons and focus still apply
	default:
		fmt.Fprintf(&b, "# Strategy: %s", d.Strategy)
	}
	if len(d.Lessons) > 0 {
		if b.Len() == 0 {
			b.WriteString("# Lessons")
		}
		b.WriteString("\n\nLessons from earlier attempts (do not repeat what failed):\n")
		for _, l := range d.Lessons {
			fmt.Fprintf(&b, "\n- %s", l)
		}
	}
	if d.Focus != "" {
		if b.Len() == 0 {
			b.WriteString("# Focus")
		}
		b.WriteString("\n\nFocus on this one failure only and leave the others for later iterations:\n\n" + d.Focus)
	}
	return b.String()
}
