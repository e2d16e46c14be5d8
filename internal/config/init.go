package config

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentloop/agentloop/internal/prompt"
)

//go:embed scaffold
var scaffold embed.FS

// Init scaffolds a workspace in dir: agentloop.yaml (commented, valid),
// prompts/{observe,orient,decide,act}.md (the built-in build procedure's
// prompts, to edit) and AGENTS.md. It adds only what is missing: a file that
// exists is kept as it is, unless force. It returns the paths it wrote and
// those it kept, relative to dir, so that running it again is safe.
func Init(dir string, force bool) (written, kept []string, err error) {
	files := []struct {
		name string
		data func() ([]byte, error)
	}{
		{WorkspaceFile, func() ([]byte, error) { return scaffold.ReadFile("scaffold/agentloop.yaml") }},
		{"AGENTS.md", func() ([]byte, error) { return scaffold.ReadFile("scaffold/AGENTS.md") }},
	}
	for _, phase := range []string{"observe", "orient", "decide", "act"} {
		files = append(files, struct {
			name string
			data func() ([]byte, error)
		}{filepath.Join("prompts", phase+".md"), func() ([]byte, error) { return prompt.ReadBuiltin("build/" + phase + ".md") }})
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if !force {
			_, err := os.Lstat(p)
			if err == nil {
				kept = append(kept, f.name)
				continue
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return written, kept, fmt.Errorf("check %s: %w", f.name, err)
			}
		}
		data, err := f.data()
		if err != nil {
			return written, kept, fmt.Errorf("init %s: %w", f.name, err)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return written, kept, fmt.Errorf("init %s: %w", f.name, err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return written, kept, fmt.Errorf("init %s: %w", f.name, err)
		}
		written = append(written, f.name)
	}
	return written, kept, nil
}
