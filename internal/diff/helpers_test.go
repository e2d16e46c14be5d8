package diff

import (
	"fmt"
	"strings"
)

// fd describes one file of a synthetic git diff: its path, "new", "deleted" or
// "" (modified), and hunk lines each starting with '+', '-' or ' '. A line
// "@@" starts another hunk.
type fd struct {
	path   string
	status string
	lines  []string
}

// mk renders files as git diff would.
func mk(files ...fd) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", f.path, f.path)
		oldP, newP := "a/"+f.path, "b/"+f.path
		switch f.status {
		case "new":
			b.WriteString("new file mode 100644\nindex 0000000..1111111\n")
			oldP = "/dev/null"
		case "deleted":
			b.WriteString("deleted file mode 100644\nindex 1111111..0000000\n")
			newP = "/dev/null"
		default:
			b.WriteString("index 1111111..2222222 100644\n")
		}
		fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldP, newP)
		var hunks [][]string
		cur := []string{}
		for _, l := range f.lines {
			if l == "@@" {
				hunks = append(hunks, cur)
				cur = []string{}
				continue
			}
			cur = append(cur, l)
		}
		hunks = append(hunks, cur)
		start := 1
		for _, h := range hunks {
			o, n := 0, 0
			for _, l := range h {
				switch l[0] {
				case '+':
					n++
				case '-':
					o++
				default:
					o++
					n++
				}
			}
			os, ns := start, start
			if o == 0 {
				os = 0
			}
			if n == 0 {
				ns = 0
			}
			fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", os, o, ns, n)
			for _, l := range h {
				b.WriteString(l + "\n")
			}
			start += 100
		}
	}
	return b.String()
}
