package forge

import (
	"strings"
	"testing"
)

func TestParseIssueRef(t *testing.T) {
	def := Repo{Host: "github.com", Owner: "acme", Name: "tool"}
	ghe := Repo{Host: "ghe.example.com", Owner: "acme", Name: "tool"}
	tests := []struct {
		in   string
		def  Repo
		want string
		err  string
	}{
		{in: "owner/repo#123", want: "owner/repo#123"},
		{in: " owner/repo#7 ", want: "owner/repo#7"},
		{in: "#12", def: def, want: "acme/tool#12"},
		{in: "12", def: def, want: "acme/tool#12"},
		{in: "#12", def: ghe, want: "ghe.example.com/acme/tool#12"},
		{in: "owner/repo#3", def: ghe, want: "ghe.example.com/owner/repo#3"},
		{in: "ghe.example.com/o/r#4", want: "ghe.example.com/o/r#4"},
		{in: "https://github.com/o/r/issues/5", want: "o/r#5"},
		{in: "https://github.com/o/r/pull/6", want: "o/r#6"},
		{in: "https://GHE.example.com/o/r/issues/8", want: "ghe.example.com/o/r#8"},
		{in: "127.0.0.1:8443/o/r#9", want: "127.0.0.1:8443/o/r#9"},
		{in: "https://127.0.0.1:8443/o/r/issues/9", want: "127.0.0.1:8443/o/r#9"},
		{in: "#9", def: Repo{Host: "127.0.0.1:8443", Owner: "o", Name: "r"}, want: "127.0.0.1:8443/o/r#9"},
		{in: "h:x/o/r#9", err: "not a valid host"},
		{in: "h:99999/o/r#9", err: "not a valid host"},
		{in: "", err: "empty"},
		{in: "#12", err: "no repository named"},
		{in: "owner/repo#0", err: "not an issue number"},
		{in: "owner/repo#x", err: "not an issue number"},
		{in: "owner#3", err: "not owner/name"},
		{in: "a/b/c/d#3", err: "not owner/name"},
		{in: "https://github.com/o/r/tree/5", err: "not the URL"},
		{in: "https://github.com/o/r/issues/-1", err: "not an issue number"},
		{in: "ow ner/repo#3", err: "not a valid"},
		{in: "../repo#3", err: "not a valid"},
	}
	for _, tt := range tests {
		got, err := ParseIssueRef(tt.in, tt.def)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseIssueRef(%q) = %v, %v; want error with %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got.String() != tt.want {
			t.Errorf("ParseIssueRef(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParseIssueRef(f *testing.F) {
	for _, s := range []string{"o/r#1", "#2", "https://github.com/o/r/issues/3", "h/o/r#4", "://", "#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseIssueRef(s, Repo{Owner: "o", Name: "r"})
		if err != nil {
			return
		}
		if r.Number <= 0 || r.Owner == "" || r.Name == "" || r.Host == "" {
			t.Fatalf("ParseIssueRef(%q) = %+v: a part is missing", s, r)
		}
		back, err := ParseIssueRef(r.String(), Repo{})
		if err != nil || back != r {
			t.Fatalf("ParseIssueRef(%q).String() = %q reads back as %+v, %v", s, r.String(), back, err)
		}
	})
}

func TestPermissionCanWrite(t *testing.T) {
	for p, want := range map[Permission]bool{
		PermissionAdmin: true, PermissionMaintain: true, PermissionWrite: true,
		PermissionTriage: false, PermissionRead: false, PermissionNone: false, "": false,
	} {
		if got := p.CanWrite(); got != want {
			t.Errorf("%q.CanWrite() = %v, want %v", p, got, want)
		}
	}
}
