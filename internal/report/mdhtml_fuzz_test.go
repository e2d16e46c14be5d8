package report

import (
	"regexp"
	"strings"
	"testing"
)

// allowedTag is every element markdownHTML may write; anything else in its
// output came from its input unescaped.
var allowedTag = regexp.MustCompile(`^</?(p|h[1-6]|ul|ol|li|table|thead|tbody|tr|th|td|pre|code|strong|em|br|hr)[ >/]`)

// FuzzMarkdownHTML: whatever the report's Markdown holds (it quotes agent and
// gate output), the HTML has only the tags the renderer writes, and no text of
// the input is lost as markup.
func FuzzMarkdownHTML(f *testing.F) {
	f.Add("# Title\n\nSome **bold** and `code`.\n\n- a\n- b\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\n<script>x</script>\n```\n")
	f.Add("<img src=x onerror=alert(1)> **<b>** `</code><script>`")
	f.Add("1. one\n2. two\n\n## h2 <i>x</i>\n|a|\n")
	f.Fuzz(func(t *testing.T, md string) {
		out := string(markdownHTML(md))
		for i := strings.IndexByte(out, '<'); i >= 0; {
			if !allowedTag.MatchString(out[i:]) {
				end := min(len(out), i+40)
				t.Fatalf("markdownHTML(%q) wrote markup it does not own: %q", md, out[i:end])
			}
			j := strings.IndexByte(out[i+1:], '<')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	})
}
