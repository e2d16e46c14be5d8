package report

import (
	"fmt"
	"html/template"
	"regexp"
	"strings"
	"sync"
)

// markdownHTML renders the small Markdown subset the escalation report uses —
// headings, paragraphs, lists, tables, fenced code, `code` and **bold** — as HTML.
// Everything is escaped first: the report's text cannot inject markup.
func markdownHTML(md string) template.HTML {
	var b strings.Builder
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	var para []string
	list := ""
	flushPara := func() {
		if len(para) > 0 {
			fmt.Fprintf(&b, "<p>%s</p>\n", inline(strings.Join(para, " ")))
			para = nil
		}
	}
	closeList := func() {
		if list != "" {
			fmt.Fprintf(&b, "</%s>\n", list)
			list = ""
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "```"):
			flushPara()
			closeList()
			var code []string
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
				code = append(code, lines[i])
			}
			fmt.Fprintf(&b, "<pre><code>%s</code></pre>\n", esc(strings.Join(code, "\n")))
		case t == "":
			flushPara()
			closeList()
		case strings.HasPrefix(t, "#"):
			flushPara()
			closeList()
			lvl := len(t) - len(strings.TrimLeft(t, "#"))
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", min(lvl+2, 6), inline(strings.TrimSpace(t[lvl:])), min(lvl+2, 6))
		case strings.HasPrefix(t, "|"):
			flushPara()
			closeList()
			var rows []string
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
				rows = append(rows, strings.TrimSpace(lines[i]))
			}
			i--
			b.WriteString(mdTable(rows))
		case listItem().MatchString(t):
			flushPara()
			kind := "ul"
			if orderedItem().MatchString(t) {
				kind = "ol"
			}
			if list != kind {
				closeList()
				fmt.Fprintf(&b, "<%s>\n", kind)
				list = kind
			}
			fmt.Fprintf(&b, "<li>%s</li>\n", inline(listItem().ReplaceAllString(t, "")))
		default:
			closeList()
			para = append(para, t)
		}
	}
	flushPara()
	closeList()
	return template.HTML(b.String()) //nolint:gosec // built from escaped text
}

var (
	listItem    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([-*+]|\d+[.)])\s+`) })
	orderedItem = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+[.)]\s+`) })
	codeSpan    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`]+)`") })
	boldSpan    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\*\*([^*]+)\*\*`) })
	tableRule   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\|?[\s:|-]+\|?$`) })
)

// inline escapes text and renders `code` and **bold**.
func inline(s string) string {
	s = esc(s)
	s = codeSpan().ReplaceAllString(s, "<code>$1</code>")
	return boldSpan().ReplaceAllString(s, "<strong>$1</strong>")
}

func mdTable(rows []string) string {
	var b strings.Builder
	b.WriteString("<table class=\"md\">\n")
	for i, r := range rows {
		if tableRule().MatchString(r) {
			continue
		}
		cells := splitRow(r)
		tag := "td"
		if i == 0 {
			tag = "th"
		}
		b.WriteString("<tr>")
		for _, c := range cells {
			fmt.Fprintf(&b, "<%s>%s</%s>", tag, inline(c), tag)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
	return b.String()
}

// splitRow splits a Markdown table row on unescaped pipes.
func splitRow(r string) []string {
	r = strings.TrimSuffix(strings.TrimPrefix(r, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(r); i++ {
		switch {
		case r[i] == '\\' && i+1 < len(r) && r[i+1] == '|':
			cur.WriteByte('|')
			i++
		case r[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(r[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}
