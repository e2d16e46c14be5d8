package gate

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// A gate on Windows prints its lines ending in "\r\n": every fixture, its
// line ends made CRLF, reads as it does with "\n" (the same format, findings,
// counts, tail and problems).
func TestCRLFReadsAsLF(t *testing.T) {
	t.Parallel()
	root := filepath.Join("testdata", "fixtures")
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lf := bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
		if !bytes.Contains(lf, []byte("\n")) {
			return nil // one line: nothing to end
		}
		n++
		crlf := bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n"))
		name, _ := filepath.Rel(root, path)
		t.Run(filepath.ToSlash(name), func(t *testing.T) {
			t.Parallel()
			o := Options{WorkDir: "/src/m", Module: "example.com/m"}
			want, err := Parse(bytes.NewReader(lf), o)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(bytes.NewReader(crlf), o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("CRLF output read otherwise than LF (-LF +CRLF):\n%s", diff)
			}
			if strings.Contains(got.Tail, "\r") {
				t.Errorf("the tail keeps a carriage return: %q", got.Tail)
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no fixtures")
	}
}

func TestCRLFReader(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"a\r\nb\r\n", "a\nb\n"},
		{"a\nb", "a\nb"},
		{"a\rb\r", "a\rb\r"}, // a lone carriage return (a progress bar) stays
		{"a\r\r\nb", "a\r\nb"},
		{"\r\n\r\n", "\n\n"},
		{"end\r", "end\r"},
	}
	for _, tt := range tests {
		for _, one := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tt.in)
			if one {
				r = iotest.OneByteReader(r) // every "\r\n" split across reads
			}
			got, err := io.ReadAll(&crlfReader{r: r})
			if err != nil || string(got) != tt.want {
				t.Errorf("crlfReader(%q), one byte a read %v = %q, %v; want %q", tt.in, one, got, err, tt.want)
			}
		}
	}
}
