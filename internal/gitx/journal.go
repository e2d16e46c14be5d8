package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/textcut"
)

// journalRef is the name, under a run's checkpoint folder, of the one ref the
// shared remote holds for the run ([ShareCheckpoints]): a commit whose
// parents are the run's checkpoints and whose message names the ref of each
// (a "journal"). Every ref a remote holds costs each push to it, and a run
// takes two checkpoints an iteration; no checkpoint is named so.
const journalRef = "journal"

// journalIdent is who writes a journal: agentloop, whoever the user is, so
// that the same checkpoints make the same journal on any clone.
const journalIdent = "agentloop <agentloop@localhost>"

// journalTitle is the first line of the message of the journal of prefix.
func journalTitle(prefix string) string { return "agentloop checkpoints " + prefix }

// journalEntry is one checkpoint a journal lists: its ref and its commit.
type journalEntry struct{ commit, ref string }

// journalCommit is the commit object of the journal of the checkpoints under
// prefix: tree is its tree, entries the refs (sorted by name), when the
// commit time ("SECONDS +ZONE"). Its parents are the entries' commits, each
// once, in the order of the entries.
func journalCommit(tree, prefix, when string, entries []journalEntry) []byte {
	var b bytes.Buffer
	b.WriteString("tree " + tree + "\n")
	seen := map[string]bool{}
	for _, e := range entries {
		if !seen[e.commit] {
			seen[e.commit] = true
			b.WriteString("parent " + e.commit + "\n")
		}
	}
	b.WriteString("author " + journalIdent + " " + when + "\n")
	b.WriteString("committer " + journalIdent + " " + when + "\n\n")
	b.WriteString(journalTitle(prefix) + "\n\n")
	for _, e := range entries {
		b.WriteString(e.commit + " " + e.ref + "\n")
	}
	return b.Bytes()
}

// parseJournal reads the checkpoints the journal commit object raw lists for
// the folder prefix. It refuses a journal that is not one: no tree, a title
// of another folder, a line that is not "COMMIT REF", a ref outside prefix
// or not a valid ref name or listed twice, or a commit that is not one of the
// journal's parents.
func parseJournal(raw []byte, prefix string) ([]journalEntry, error) {
	head, body, ok := bytes.Cut(raw, []byte("\n\n"))
	if !ok {
		return nil, errors.New("not a commit: no message")
	}
	parents := map[string]bool{}
	for i, line := range strings.Split(string(head), "\n") {
		switch {
		case i == 0 && !strings.HasPrefix(line, "tree "):
			return nil, errors.New("not a commit: no tree")
		case strings.HasPrefix(line, "parent "):
			p := strings.TrimPrefix(line, "parent ")
			if !isObjectName(p) {
				return nil, fmt.Errorf("parent %q is not a commit ID", textcut.Bytes(p, 80))
			}
			parents[p] = true
		}
	}
	lines := strings.Split(string(body), "\n")
	if lines[0] != journalTitle(prefix) {
		return nil, fmt.Errorf("its title %q is not %q", textcut.Bytes(lines[0], 80), journalTitle(prefix))
	}
	var out []journalEntry
	seen := map[string]bool{}
	for n, line := range lines[1:] {
		if line == "" {
			continue
		}
		commit, ref, ok := strings.Cut(line, " ")
		switch {
		case !ok || !isObjectName(commit):
			return nil, fmt.Errorf("line %d %q is not \"COMMIT REF\"", n+2, textcut.Bytes(line, 80))
		case !strings.HasPrefix(ref, prefix) || !validRefName(ref) || ref == prefix+journalRef:
			return nil, fmt.Errorf("line %d: %q is not a checkpoint ref under %s", n+2, textcut.Bytes(ref, 80), prefix)
		case seen[ref]:
			return nil, fmt.Errorf("line %d: %s is listed twice", n+2, ref)
		case !parents[commit]:
			return nil, fmt.Errorf("line %d: the commit %s of %s is not one of the journal's parents", n+2, commit, ref)
		}
		seen[ref] = true
		out = append(out, journalEntry{commit: commit, ref: ref})
	}
	return out, nil
}

// validRefName reports whether name is a ref name git accepts
// (git-check-ref-format(1)), with at least two components.
func validRefName(name string) bool {
	if name == "" || strings.HasSuffix(name, ".") || strings.Contains(name, "..") || strings.Contains(name, "@{") || name == "@" {
		return false
	}
	parts := strings.Split(name, "/")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.HasPrefix(p, ".") || strings.HasSuffix(p, ".lock") {
			return false
		}
		for _, c := range []byte(p) {
			if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
				return false
			}
		}
	}
	return true
}

// writeJournals writes, in the repository at dir, the journal of the
// checkpoints under each of prefixes, and returns the push refspec of each
// (prefixes with no checkpoint have none). It costs two git processes
// whatever the number of prefixes: one lists the refs, one writes the
// commits. A journal's tree is its first parent's: no object to write or
// send (the empty tree would cost a process to write, in a repository of
// either hash), and the journal shows no change against its first parent.
// A ref under a prefix that is no commit is no checkpoint and left out; so
// is a journal ref there.
func writeJournals(ctx context.Context, dir string, prefixes []string) ([]string, error) {
	out, err := git(ctx, dir, append([]string{"for-each-ref", "--format=%(objectname) %(objecttype) %(committerdate:unix) %(tree) %(refname)", "--"}, prefixes...)...)
	if err != nil {
		return nil, err
	}
	entries := map[string][]journalEntry{}
	latest := map[string]int64{}
	trees := map[string]string{} // commit → its tree
	for _, line := range lines(out) {
		f := strings.SplitN(line, " ", 5)
		if len(f) != 5 || f[1] != "commit" {
			continue
		}
		when, _ := strconv.ParseInt(f[2], 10, 64)
		trees[f[0]] = f[3]
		for _, p := range prefixes {
			if strings.HasPrefix(f[4], p) && f[4] != p+journalRef {
				entries[p] = append(entries[p], journalEntry{commit: f[0], ref: f[4]})
				latest[p] = max(latest[p], when)
			}
		}
	}
	if len(entries) == 0 {
		return nil, nil
	}
	tmp, err := os.MkdirTemp("", "agentloop-journal-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var paths strings.Builder
	var order []string
	for _, p := range prefixes {
		es := entries[p]
		if len(es) == 0 || slices.Contains(order, p) {
			continue
		}
		slices.SortFunc(es, func(a, b journalEntry) int { return strings.Compare(a.ref, b.ref) })
		// The newest checkpoint's time: the same checkpoints make the
		// same journal, which a push finds on the remote already.
		raw := journalCommit(trees[es[0].commit], p, strconv.FormatInt(latest[p], 10)+" +0000", es)
		path := filepath.Join(tmp, strconv.Itoa(len(order)))
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			return nil, err
		}
		paths.WriteString(path + "\n")
		order = append(order, p)
	}
	out, err = cmd{dir: dir, stdin: strings.NewReader(paths.String()), args: []string{"hash-object", "-t", "commit", "-w", "--stdin-paths"}}.run(ctx)
	if err != nil {
		return nil, fmt.Errorf("write the journals: %w", err)
	}
	oids := lines(out)
	if len(oids) != len(order) {
		return nil, fmt.Errorf("write the journals: git wrote %d of %d", len(oids), len(order))
	}
	specs := make([]string, len(order))
	for i, p := range order {
		specs[i] = "+" + oids[i] + ":" + p + journalRef
	}
	return specs, nil
}

// readJournal applies the journal fetched to prefix+[journalRef] in the
// repository at dir, if one came: the refs it lists are set to its commits,
// and the journal ref is deleted, in one transaction. A journal that is
// malformed is an error, and its ref deleted all the same.
func readJournal(ctx context.Context, dir, prefix string) error {
	ref := prefix + journalRef
	out, err := cmd{dir: dir, stdin: strings.NewReader(ref + "\n"), args: []string{"cat-file", "--batch"}}.run(ctx)
	if err != nil {
		return err
	}
	header, raw, _ := strings.Cut(out, "\n")
	f := strings.Fields(header)
	if len(f) == 2 && f[1] == "missing" {
		return nil // none came: the remote holds the refs themselves
	}
	entries, err := journalEntries(f, raw, prefix)
	if err != nil {
		if _, derr := git(ctx, dir, "update-ref", "-d", ref); derr != nil {
			err = errors.Join(err, derr)
		}
		return fmt.Errorf("%s: %w", ref, err)
	}
	var tx strings.Builder
	tx.WriteString("start\n")
	for _, e := range entries {
		tx.WriteString("update " + e.ref + " " + e.commit + "\n")
	}
	tx.WriteString("delete " + ref + "\ncommit\n")
	if _, err := (cmd{dir: dir, stdin: strings.NewReader(tx.String()), args: []string{"update-ref", "--stdin"}}).run(ctx); err != nil {
		return fmt.Errorf("set the refs %s lists: %w", ref, err)
	}
	return nil
}

// journalEntries parses what `git cat-file --batch` printed of a journal:
// its header fields and the rest.
func journalEntries(header []string, rest, prefix string) ([]journalEntry, error) {
	if len(header) != 3 || header[1] != "commit" {
		return nil, fmt.Errorf("not a commit (%s)", strings.Join(header, " "))
	}
	size, err := strconv.Atoi(header[2])
	if err != nil || size > len(rest) {
		return nil, fmt.Errorf("unreadable (%s)", strings.Join(header, " "))
	}
	return parseJournal([]byte(rest[:size]), prefix)
}
