package app

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/plan"
)

// TestOpenGitHubApp: a GitHub App named in the configuration is what the
// forge acts as, its key read from its file (relative to the work tree);
// one named only in part, or whose key cannot be read, is a setup to fix
// that names the settings, not GH_TOKEN.
func TestOpenGitHubApp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app.pem"), pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		t.Fatal(err)
	}
	repo := forge.Repo{Host: "github.com", Owner: "acme", Name: "tool"}
	a := forgeApp(&plan.Plan{WorkDir: dir, Issues: config.Issues{App: config.GitHubApp{ID: "42", PrivateKeyFile: "app.pem"}}})
	if a.PrivateKeyFile != filepath.Join(dir, "app.pem") {
		t.Fatalf("forgeApp: the key file %q, want it from the work tree", a.PrivateKeyFile)
	}
	f, err := OpenGitHub(t.Context(), repo, a)
	if err != nil {
		t.Fatalf("OpenGitHub(app) = %v", err)
	}
	if c, ok := f.(interface{ Credential() string }); !ok || c.Credential() != "the GitHub App 42's installation on acme/tool" {
		t.Errorf("the forge acts as %v, not the App", f)
	}
	for _, tc := range []struct {
		app  config.GitHubApp
		want string
	}{
		{config.GitHubApp{PrivateKeyFile: a.PrivateKeyFile}, "the GitHub App has no id"},
		{config.GitHubApp{ID: "42", InstallationID: 7}, "the GitHub App 42 has no private key file"},
		{config.GitHubApp{ID: "42", PrivateKeyFile: filepath.Join(dir, "none.pem")}, "none.pem: no such file"},
	} {
		_, err := OpenGitHub(t.Context(), repo, tc.app)
		if err == nil || !IsSetup(err) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "GH_TOKEN") {
			t.Errorf("OpenGitHub(%+v) = %v; want a setup error saying %q", tc.app, err, tc.want)
		}
	}
}
