package config

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/prompt"
)

//go:embed scaffold
var scaffold embed.FS

// Init scaffolds a workspace in dir: agentloop.yaml (commented, valid),
// prompts/{observe,orient,decide,act}.md (the built-in build procedure's
// prompts, to edit) and AGENTS.md. It writes nothing when any file exists,
// unless force. It returns the paths written, relative to dir.
func Init(dir string, force bool) ([]string, error) {
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
	if !force {
		var exist []string
		for _, f := range files {
			_, err := os.Lstat(filepath.Join(dir, f.name))
			if err == nil {
				exist = append(exist, f.name)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("check %s: %w", f.name, err)
			}
		}
		if len(exist) > 0 {
			return nil, fmt.Errorf("init %s: %s already exist(s); use --force to overwrite", dir, strings.Join(exist, ", "))
		}
	}
	var written []string
	for _, f := range files {
		data, err := f.data()
		if err != nil {
			return written, fmt.Errorf("init %s: %w", f.name, err)
		}
		p := filepath.Join(dir, f.name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return written, fmt.Errorf("init %s: %w", f.name, err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return written, fmt.Errorf("init %s: %w", f.name, err)
		}
		written = append(written, f.name)
	}
	return written, nil
}
