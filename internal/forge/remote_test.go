package forge

import "testing"

func TestRepoOfRemote(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"https://github.com/acme/tool.git", "acme/tool"},
		{"https://github.com/acme/tool", "acme/tool"},
		{"https://GitHub.com/acme/tool/", "acme/tool"},
		{"https://user@ghe.example.com/acme/tool.git", "ghe.example.com/acme/tool"},
		{"https://127.0.0.1:8443/acme/tool.git", "127.0.0.1:8443/acme/tool"},
		{"git@github.com:acme/tool.git", "acme/tool"},
		{"github.com:acme/tool", "acme/tool"},
		{"ssh://git@ghe.example.com:2222/acme/tool.git", "ghe.example.com/acme/tool"},
		{"/srv/git/tool.git", ""},
		{"file:///srv/git/acme/tool.git", ""},
		{"https://github.com/acme", ""},
		{"https://github.com/a/b/c", ""},
		{"git@github.com:ac me/tool.git", ""},
		{"", ""},
	} {
		got, err := RepoOfRemote(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("RepoOfRemote(%q) = %v; want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got.String() != tt.want {
			t.Errorf("RepoOfRemote(%q) = %q, %v; want %q", tt.in, got.String(), err, tt.want)
		}
	}
}
