package redact

import (
	"bytes"
	"strings"
	"testing"
)

func TestRedactorBytes(t *testing.T) {
	t.Parallel()
	env := []string{
		"ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
		"MY_SERVICE_TOKEN=tok3n-value-1234",
		"DB_PASSWORD=hunter2hunter2",
		"SHORT_TOKEN=abc",        // too short to redact
		"HOME=/root/secret-home", // not a secret name
		"EMPTY_SECRET=",
	}
	r := New(env)
	tests := []struct{ in, want string }{
		{"nothing here\n", "nothing here\n"},
		{"key sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345 used\n", "key [REDACTED:$ANTHROPIC_API_KEY] used\n"},
		{"auth with tok3n-value-1234!\n", "auth with [REDACTED:$MY_SERVICE_TOKEN]!\n"},
		{`{"password":"hunter2hunter2"}`, `{"password":"[REDACTED:$DB_PASSWORD]"}`},
		{"gh token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n", "gh token [REDACTED]\n"},
		{"openai sk-proj-AAAAAAAAAAAAAAAAAAAAAAAAAAAA end", "openai [REDACTED] end"},
		{"aws AKIAABCDEFGHIJKLMNOP\n", "aws [REDACTED]\n"},
		{"-----BEGIN RSA PRIVATE KEY-----\n", "[REDACTED]\n"},
		{"abc is short, /root/secret-home is a path\n", "abc is short, /root/secret-home is a path\n"},
		{"sk- is not a key, nor is task-list\n", "sk- is not a key, nor is task-list\n"},
	}
	for _, tt := range tests {
		if got := string(r.Bytes([]byte(tt.in))); got != tt.want {
			t.Errorf("Bytes(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	var nilR *Redactor
	if got := nilR.String("k ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"); got != "k [REDACTED]" {
		t.Errorf("a nil redactor still redacts shapes: got %q", got)
	}
}

func TestSecretName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "GITHUB_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true, "AWS_ACCESS_KEY": true,
		"PGPASSWORD": true, "client_secret": true, "API_KEY": true,
		"HOME": false, "PATH": false, "TOKENIZER": false, "KEYBOARD": false, "GIT_AUTHOR_NAME": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestWriterSplitsAnywhere: however the stream is cut into writes, a secret is
// redacted and every other byte passes through unchanged.
func TestWriterSplitsAnywhere(t *testing.T) {
	t.Parallel()
	r := New([]string{"X_TOKEN=supersecretvalue99"})
	in := "line one\nthe token is supersecretvalue99 here\n{\"k\":\"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\"}\nlast line without newline supersecretvalue99"
	want := "line one\nthe token is [REDACTED:$X_TOKEN] here\n{\"k\":\"[REDACTED]\"}\nlast line without newline [REDACTED:$X_TOKEN]"
	for size := 1; size <= len(in); size += 7 {
		var out bytes.Buffer
		w := r.NewWriter(&out)
		for p := in; len(p) > 0; {
			n := min(size, len(p))
			if k, err := w.Write([]byte(p[:n])); err != nil || k != n {
				t.Fatalf("Write = %d, %v", k, err)
			}
			p = p[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("chunks of %d: got %q, want %q", size, out.String(), want)
		}
	}
}

func TestWriterBoundsLongLines(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := New(nil).NewWriter(&out)
	long := strings.Repeat("x", 3*maxLine)
	if _, err := w.Write([]byte(long)); err != nil {
		t.Fatal(err)
	}
	if len(w.buf) >= maxLine {
		t.Errorf("held back %d bytes of a line without newline, want < %d", len(w.buf), maxLine)
	}
	_ = w.Flush()
	if out.Len() != len(long) {
		t.Errorf("passed on %d bytes, want %d", out.Len(), len(long))
	}
}

func TestWriterReportsDestinationError(t *testing.T) {
	t.Parallel()
	w := New(nil).NewWriter(failing{})
	if _, err := w.Write([]byte("a\n")); err == nil {
		t.Error("a failing destination is not reported")
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, bytes.ErrTooLarge }

func BenchmarkWriter(b *testing.B) {
	line := []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"Running go test ./... in the task-list package, all fine"}]}}` + "\n")
	chunk := bytes.Repeat(line, (32<<10)/len(line))
	w := New([]string{"ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345"}).NewWriter(discard{})
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		_, _ = w.Write(chunk)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func FuzzRedact(f *testing.F) {
	f.Add("the token is supersecretvalue99 and ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n", 3)
	f.Add("-----BEGIN PRIVATE KEY-----", 1)
	f.Fuzz(func(t *testing.T, in string, size int) {
		r := New([]string{"X_TOKEN=supersecretvalue99"})
		whole := r.String(in)
		if strings.Contains(whole, "supersecretvalue99") {
			t.Fatalf("the variable's value survived: %q", whole)
		}
		if size < 1 {
			size = 1
		}
		var out bytes.Buffer
		w := r.NewWriter(&out)
		for p := in; len(p) > 0; {
			n := min(size, len(p))
			_, _ = w.Write([]byte(p[:n]))
			p = p[n:]
		}
		_ = w.Close()
		if len(in) < maxLine && out.String() != whole {
			t.Fatalf("streamed %q, whole %q", out.String(), whole)
		}
	})
}
