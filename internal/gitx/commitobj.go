package gitx

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/adler32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// commitWriter writes a checkpoint's commit object itself, as a loose object,
// instead of starting `git commit-tree` for it: a process saved an iteration
// (a third of a checkpoint's git processes). It writes nothing before it has
// learned, from a commit `git commit-tree` made for this checkpointer, what git
// would write: the author and committer (git's identity from its configuration
// and the environment, or agentloop's fallback), the object format (its hash:
// the learned commit's content must hash to its name), where loose objects go
// and their modes, and that git adds no header of its own (an encoding, a
// signature). It never learns when the environment sets the commit's dates, or
// another object directory, and stops at the first thing it cannot do as git
// does: the checkpointer then asks git, as before.
//
// What it writes is what git writes, byte for byte
// (TestCommitWriterWritesWhatGitWrites): the same object, under the same
// name, so nothing that reads the repository can tell (stored uncompressed in
// its file, as git does at core.looseCompression 0: [zlibStored]). Like git by
// default (core.fsync leaves loose objects out), it does not sync the object:
// a checkpoint's commit is as durable as one git commit-tree makes.
type commitWriter struct {
	learned   bool
	off       bool   // learning failed or a write did: ask git from now on
	objects   string // the objects directory
	author    string // "Name <email>", as git wrote it
	committer string
	sum       func() hash.Hash
	fileMode  fs.FileMode // the learned object's mode
	dirMode   fs.FileMode // and its folder's
	now       func() time.Time
}

// learn reads the commit git made, name, from the loose objects of the
// repository whose common git directory is common, and learns to write the
// next ones. It learns nothing when it cannot tell that its commits would be
// git's.
func (w *commitWriter) learn(common, gitDir, name string) {
	if w.learned || w.off {
		return
	}
	w.off = true // unless all of what follows holds
	for _, v := range []string{"GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "GIT_OBJECT_DIRECTORY"} {
		if _, set := os.LookupEnv(v); set {
			return
		}
	}
	if mayConfigureSync(common, gitDir) {
		return
	}
	var sum func() hash.Hash
	switch len(name) {
	case 40:
		sum = sha1.New
	case 64:
		sum = sha256.New
	default:
		return
	}
	objects := filepath.Join(common, "objects")
	path := filepath.Join(objects, name[:2], name[2:])
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		return
	}
	raw, err := readLoose(path)
	if err != nil {
		return
	}
	h := sum()
	h.Write(raw)
	if hex.EncodeToString(h.Sum(nil)) != name {
		return
	}
	head, body, found := bytes.Cut(raw, []byte{0})
	if !found || string(head) != "commit "+strconv.Itoa(len(body)) {
		return
	}
	author, committer, ok := idents(string(body))
	if !ok || !sameZone(string(body), w.clock()) {
		return
	}
	// The folder's setgid bit is git's in a shared repository
	// (core.sharedRepository): what others write there keeps its group.
	*w = commitWriter{learned: true, objects: objects, author: author, committer: committer, sum: sum,
		fileMode: fi.Mode().Perm(), dirMode: di.Mode() & (fs.ModePerm | fs.ModeSetgid), now: w.now}
}

// readLoose returns a loose object's inflated bytes, header included.
func readLoose(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := zlib.NewReader(f)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	return io.ReadAll(io.LimitReader(z, 1<<20))
}

// idents returns the author's and the committer's identity of a commit's
// content, without their dates, when its headers are the ones commit-tree
// writes for a checkpoint: a tree, parents, the author, the committer.
func idents(body string) (author, committer string, ok bool) {
	head, _, found := strings.Cut(body, "\n\n")
	if !found {
		return "", "", false
	}
	lines := strings.Split(head, "\n")
	i := 0
	if i >= len(lines) || !strings.HasPrefix(lines[i], "tree ") {
		return "", "", false
	}
	for i++; i < len(lines) && strings.HasPrefix(lines[i], "parent "); i++ {
	}
	if len(lines) != i+2 {
		return "", "", false // no author or committer, or a header more
	}
	author, ok = identOf(lines[i], "author ")
	if !ok {
		return "", "", false
	}
	committer, ok = identOf(lines[i+1], "committer ")
	return author, committer, ok
}

// identOf is "Name <email>" of a line "KEY Name <email> SECONDS ZONE".
func identOf(line, key string) (string, bool) {
	rest, ok := strings.CutPrefix(line, key)
	if !ok {
		return "", false
	}
	f := strings.Fields(rest)
	if len(f) < 3 || !strings.HasSuffix(f[len(f)-3], ">") {
		return "", false
	}
	ident := strings.TrimSuffix(strings.TrimSuffix(rest, " "+f[len(f)-1]), " "+f[len(f)-2])
	return ident, ident != rest
}

// encode is a commit's content as commit-tree writes it at when.
func (w *commitWriter) encode(tree string, parents []string, message string, when time.Time) []byte {
	date := strconv.FormatInt(when.Unix(), 10) + " " + when.Format("-0700")
	var b strings.Builder
	b.WriteString("tree " + tree + "\n")
	for _, p := range parents {
		b.WriteString("parent " + p + "\n")
	}
	b.WriteString("author " + w.author + " " + date + "\ncommitter " + w.committer + " " + date + "\n\n" + message)
	return []byte(b.String())
}

// write writes the commit of tree, with parents and message, as git would,
// and returns its name; ok is false when it did not (the caller asks git).
func (w *commitWriter) write(tree string, parents []string, message string) (string, bool) {
	if !w.learned || w.off || !utf8.ValidString(message) || strings.ContainsRune(message, 0) || strings.IndexFunc(message, nonCharacter) >= 0 {
		return "", false // git would change the message (what it does not take for UTF-8 taken for Latin-1)
	}
	body := w.encode(tree, parents, message, w.clock()())
	obj := append([]byte("commit "+strconv.Itoa(len(body))+"\x00"), body...)
	h := w.sum()
	h.Write(obj)
	name := hex.EncodeToString(h.Sum(nil))
	if err := w.store(name, obj); err != nil {
		w.off = true
		return "", false
	}
	return name, true
}

// store writes obj as the loose object name: a temporary file in its folder,
// renamed into place, as git does; an object already there is kept.
func (w *commitWriter) store(name string, obj []byte) error {
	dir := filepath.Join(w.objects, name[:2])
	path := filepath.Join(dir, name[2:])
	if _, err := os.Stat(path); err == nil {
		now := time.Now()
		return os.Chtimes(path, now, now) // git freshens an object it would have written
	}
	if err := os.Mkdir(dir, 0o777); err == nil {
		if err := os.Chmod(dir, w.dirMode); err != nil {
			return err
		}
	} else if !os.IsExist(err) {
		return err
	}
	f, err := os.CreateTemp(dir, "tmp_obj_*") // git's name for them: its gc removes one left behind
	if err != nil {
		return err
	}
	_, werr := f.Write(zlibStored(obj))
	if werr == nil {
		werr = f.Chmod(w.fileMode)
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write the object %s: %w", name, werr)
	}
	return nil
}

// zlibStored is data as a zlib stream of stored deflate blocks: what git
// writes with core.looseCompression 0, which any reader of the object inflates
// as it would git's own. A compressor of compress/flate allocates 650 kB (its
// hash tables) for the 200 bytes of a commit: three of them more than doubled
// what a run of three iterations allocated.
func zlibStored(data []byte) []byte {
	const maxBlock = 65535
	out := make([]byte, 0, 2+len(data)+5*(len(data)/maxBlock+1)+4)
	out = append(out, 0x78, 0x01) // deflate, a 32 KiB window, no dictionary, the fastest level
	rest := data
	for {
		n := min(len(rest), maxBlock)
		final := byte(0)
		if n == len(rest) {
			final = 1
		}
		out = append(out, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		out = append(out, rest[:n]...)
		rest = rest[n:]
		if final == 1 {
			break
		}
	}
	return binary.BigEndian.AppendUint32(out, adler32.Checksum(data))
}

// clock is the writer's time (the time zone of its dates too).
func (w *commitWriter) clock() func() time.Time {
	if w.now != nil {
		return w.now
	}
	return time.Now
}

// sameZone reports whether the committer date of the commit content body
// has the offset the writer's clock gives that instant: Go and git read TZ
// apart (a POSIX rule such as "JST-9" is UTC to Go), and a commit of the
// writer's must carry git's offset.
func sameZone(body string, now func() time.Time) bool {
	i := strings.Index(body, "\ncommitter ")
	if i < 0 {
		return false
	}
	line, _, _ := strings.Cut(body[i+1:], "\n")
	f := strings.Fields(line)
	if len(f) < 2 {
		return false
	}
	sec, err := strconv.ParseInt(f[len(f)-2], 10, 64)
	if err != nil {
		return false
	}
	return time.Unix(sec, 0).In(now().Location()).Format("-0700") == f[len(f)-1]
}

// nonCharacter reports whether git's UTF-8 check refuses r (its
// verify_utf8: U+FDD0–U+FDEF, and U+xFFFE and U+xFFFF of every plane).
func nonCharacter(r rune) bool { return r >= 0xFDD0 && r <= 0xFDEF || r&0xFFFE == 0xFFFE }
