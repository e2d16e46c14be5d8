package main

import (
	"fmt"
	"html"
	"image/png"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// palette is xterm's 16 colours.
var palette = []string{"#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
	"#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"}

// color256 is the colour n of xterm's 256.
func color256(n int) string {
	switch {
	case n < 16:
		return palette[n]
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	}
	g := 8 + 10*(n-232)
	return fmt.Sprintf("#%02x%02x%02x", g, g, g)
}

var sgr = regexp.MustCompile("\x1b\\[([0-9;:]*)m")

// terminalHTML is a page that shows text with its SGR escapes (what tmux
// capture-pane -e gives) as a terminal shows them: white on black, bold,
// faint, underline, reverse, 16, 256 and true colours.
func terminalHTML(text string) string {
	type style struct {
		fg, bg                          string
		bold, faint, underline, reverse bool
	}
	var st style
	var b strings.Builder
	b.WriteString(`<!doctype html><meta charset="utf-8"><style>body{margin:0;background:#101010}` +
		`pre{margin:12px;font:15px/1.25 "DejaVu Sans Mono",monospace;color:#e5e5e5}</style><pre>`)
	span := func(s string) {
		if s == "" {
			return
		}
		fg, bg := st.fg, st.bg
		if st.reverse {
			fg, bg = bg, fg
			if fg == "" {
				fg = "#101010"
			}
			if bg == "" {
				bg = "#e5e5e5"
			}
		}
		var css []string
		if fg != "" {
			css = append(css, "color:"+fg)
		}
		if bg != "" {
			css = append(css, "background:"+bg)
		}
		if st.bold {
			css = append(css, "font-weight:bold")
		}
		if st.faint {
			css = append(css, "opacity:.6")
		}
		if st.underline {
			css = append(css, "text-decoration:underline")
		}
		if len(css) == 0 {
			b.WriteString(html.EscapeString(s))
			return
		}
		fmt.Fprintf(&b, `<span style="%s">%s</span>`, strings.Join(css, ";"), html.EscapeString(s))
	}
	last := 0
	for _, m := range sgr.FindAllStringSubmatchIndex(text, -1) {
		span(text[last:m[0]])
		last = m[1]
		codes := strings.FieldsFunc(text[m[2]:m[3]], func(r rune) bool { return r == ';' || r == ':' })
		if len(codes) == 0 {
			codes = []string{"0"}
		}
		for i := 0; i < len(codes); i++ {
			c, _ := strconv.Atoi(codes[i])
			switch {
			case c == 0:
				st = style{}
			case c == 1:
				st.bold = true
			case c == 2:
				st.faint = true
			case c == 22:
				st.bold, st.faint = false, false
			case c == 4:
				st.underline = true
			case c == 24:
				st.underline = false
			case c == 7:
				st.reverse = true
			case c == 27:
				st.reverse = false
			case c/10 == 3 || c/10 == 4 || c/10 == 9 || c/10 == 10: // colours: 3x, 9x fg; 4x, 10x bg
				slot := &st.fg
				if c/10 == 4 || c/10 == 10 {
					slot = &st.bg
				}
				switch n := c % 10; {
				case n < 8 && c >= 90:
					*slot = palette[n+8]
				case n < 8:
					*slot = palette[n]
				case n == 9:
					*slot = ""
				case i+2 < len(codes) && codes[i+1] == "5":
					k, _ := strconv.Atoi(codes[i+2])
					*slot = color256(min(max(k, 0), 255))
					i += 2
				case i+4 < len(codes) && codes[i+1] == "2":
					r, _ := strconv.Atoi(codes[i+2])
					g, _ := strconv.Atoi(codes[i+3])
					bl, _ := strconv.Atoi(codes[i+4])
					*slot = fmt.Sprintf("#%02x%02x%02x", r&255, g&255, bl&255)
					i += 4
				}
			}
		}
	}
	span(text[last:])
	b.WriteString("</pre>\n")
	return b.String()
}

// checkPNG fails the test unless path is a PNG image that shows something:
// more than two colours (the background, the text and the view's colours).
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	seen := map[[4]uint32]bool{}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y += 3 {
		for x := r.Min.X; x < r.Max.X; x += 3 {
			c0, c1, c2, c3 := img.At(x, y).RGBA()
			seen[[4]uint32{c0, c1, c2, c3}] = true
		}
	}
	if r.Dx() < 800 || len(seen) < 3 {
		t.Errorf("screenshot %s is %dx%d with %d colours: nothing drawn", path, r.Dx(), r.Dy(), len(seen))
	}
}

// The page shows each SGR as its style, the text escaped.
func TestTerminalHTML(t *testing.T) {
	t.Parallel()
	got := terminalHTML("a\x1b[1;33mb<\x1b[0m\x1b[7mc\x1b[m\x1b[38;5;196md\x1b[38;2;1;2;3me\x1b[0;92;44mf\x1b[49mg\x1b[39mh")
	for _, want := range []string{
		`a<span style="color:#cdcd00;font-weight:bold">b&lt;</span>`,
		`<span style="color:#101010;background:#e5e5e5">c</span>`,
		`<span style="color:#ff0000">d</span>`,
		`<span style="color:#010203">e</span>`,
		`<span style="color:#00ff00;background:#0000ee">f</span>`,
		`<span style="color:#00ff00">g</span>h`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("terminalHTML lacks %q:\n%s", want, got)
		}
	}
}
