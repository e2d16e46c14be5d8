package gitx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// mayConfigureSync reports whether git's configuration, as git would read it
// for the repository whose common git directory is common, may make git sync
// the loose objects it writes (core.fsync, core.fsyncObjectFiles), which the
// writer does not: then git writes the commits. It reads the configuration
// files and the environment's settings, no process, and says yes for any
// mention of fsync and for any include, whose files it does not follow.
func mayConfigureSync(common, gitDir string) bool {
	mentions := func(s string) bool {
		s = strings.ToLower(s)
		return strings.Contains(s, "fsync") || strings.Contains(s, "include")
	}
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); (k == "GIT_CONFIG_PARAMETERS" || strings.HasPrefix(k, "GIT_CONFIG_KEY_")) && mentions(v) {
			return true
		}
	}
	home, _ := os.UserHomeDir()
	// A linked worktree's own settings are in its git directory's
	// config.worktree (extensions.worktreeConfig).
	files := []string{filepath.Join(common, "config"), filepath.Join(common, "config.worktree"), filepath.Join(gitDir, "config.worktree")}
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		files = append(files, g)
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
	}
	if _, off := os.LookupEnv("GIT_CONFIG_NOSYSTEM"); !off {
		if sys, ok := os.LookupEnv("GIT_CONFIG_SYSTEM"); ok {
			files = append(files, sys)
		} else {
			// Where git's builds keep it: the system's, a prefix's, Homebrew's,
			// Git for Windows'.
			files = append(files, "/etc/gitconfig", "/usr/local/etc/gitconfig", "/opt/homebrew/etc/gitconfig")
			if pf := os.Getenv("ProgramFiles"); pf != "" {
				files = append(files, filepath.Join(pf, "Git", "etc", "gitconfig"), filepath.Join(pf, "Git", "mingw64", "etc", "gitconfig"))
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return true // a configuration it cannot read may say anything
		}
		if mentions(string(b)) {
			return true
		}
	}
	return false
}
