package prompt

import (
	"os"
	"path/filepath"
)

// FileReader returns a read function for [Compose] that resolves relative
// paths against workDir.
func FileReader(workDir string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(workDir, p)
		}
		return os.ReadFile(p)
	}
}
