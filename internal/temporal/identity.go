package temporal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/state"
)

// repoIDFile is the file of a repository's identity in its state folder.
const repoIDFile = "repository-id"

// RepoID is the identity of the repository (its clone on this machine) whose
// state folder is stateDir and work tree workDir: a hash of the machine's name
// and the work tree's path, kept in the state folder once made, so that it
// stays what it was when the machine is renamed. A run's workflow ID carries
// it ([RunInput.Repo]): runs of the same name in two repositories, or in two
// clones, are two workflows.
func RepoID(stateDir, workDir string) (string, error) {
	file := filepath.Join(stateDir, repoIDFile)
	if b, err := os.ReadFile(file); err == nil {
		if id := strings.TrimSpace(string(b)); validRepoID(id) {
			return id, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read the repository's identity: %w", err)
	}
	host, _ := os.Hostname()
	abs, err := filepath.Abs(workDir)
	if err != nil {
		return "", fmt.Errorf("the repository's identity: %w", err)
	}
	sum := sha256.Sum256([]byte(host + "\x00" + abs))
	id := hex.EncodeToString(sum[:5])
	// The state folder made here is made as every state folder is: with the
	// .gitignore that keeps it out of the repository.
	if err := (state.Store{Root: stateDir}).EnsureRoot(); err != nil {
		return "", fmt.Errorf("keep the repository's identity: %w", err)
	}
	if err := os.WriteFile(file, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("keep the repository's identity: %w", err)
	}
	return id, nil
}

// KnownRepoID is the identity [RepoID] kept in the state folder, "" when it
// has none (no run of the repository was started on Temporal).
func KnownRepoID(stateDir string) string {
	b, err := os.ReadFile(filepath.Join(stateDir, repoIDFile))
	if id := strings.TrimSpace(string(b)); err == nil && validRepoID(id) {
		return id
	}
	return ""
}

// validRepoID reports whether id can be a repository's identity in a
// workflow ID: 1 to 32 lower-case letters and digits.
func validRepoID(id string) bool {
	if id == "" || len(id) > 32 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Scoped is the key of the run name in the repository repo: what
// [WorkflowID] makes the run's workflow ID of ("name@repo"; the name alone
// for repo "": a run, a graph or a graph's task started before workflow IDs
// carried their repository).
func Scoped(name, repo string) string {
	if repo == "" {
		return name
	}
	return name + "@" + repo
}

// Unscoped is the run name of a key ([Scoped]) and its repository ("" for
// none).
func Unscoped(key string) (name, repo string) {
	name, repo, _ = strings.Cut(key, "@")
	return name, repo
}
