package gate

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// parseGoVetJSON reads go vet -json: one object per package (several may follow
// each other), {"pkg": {"analyzer": [{"posn": "file:l:c", "message": …}]}}. go vet
// -json exits 0 even when it reports findings.
func parseGoVetJSON(br *bufio.Reader, c *collector) error {
	dec := json.NewDecoder(io.LimitReader(skipToJSON(br), MaxDocument))
	for {
		var doc map[string]map[string]json.RawMessage
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		c.parsed = true
		pkgs := sortedKeys(doc)
		for _, pkg := range pkgs {
			for _, analyzer := range sortedKeys(doc[pkg]) {
				var diags []struct {
					Posn    string `json:"posn"`
					Message string `json:"message"`
				}
				if json.Unmarshal(doc[pkg][analyzer], &diags) != nil {
					continue // {"error": …} when a package does not type-check
				}
				for _, d := range diags {
					f := evidence.Finding{Kind: evidence.KindLint, ID: analyzer, Message: d.Message}
					f.File, f.Line, f.Col = splitPosn(d.Posn)
					c.add(f)
				}
			}
		}
	}
}

// skipToJSON skips leading lines that are not JSON ("# pkg" headers).
func skipToJSON(br *bufio.Reader) io.Reader {
	for {
		b, err := br.Peek(1)
		if err != nil || b[0] == '{' || b[0] == '[' {
			return br
		}
		if b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r' {
			_, _ = br.ReadByte()
			continue
		}
		if _, err := br.ReadSlice('\n'); err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return br
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// splitPosn splits "file:line:col" (col optional).
func splitPosn(p string) (string, int, int) {
	file, ln := splitFileLine(p)
	if i := strings.LastIndexByte(file, ':'); i >= 0 {
		if f2, l2 := splitFileLine(file); l2 > 0 {
			return f2, l2, ln
		}
	}
	return file, ln, 0
}

// parseGolangci reads golangci-lint v2 JSON (--output.json.path stdout). The
// compound "typecheck" issue is re-parsed into its compiler errors.
func parseGolangci(br *bufio.Reader, c *collector) error {
	var doc struct {
		Issues []struct {
			FromLinter string
			Text       string
			Severity   string
			Pos        struct {
				Filename     string
				Line, Column int
			}
		}
	}
	if err := json.NewDecoder(io.LimitReader(skipToJSON(br), MaxDocument)).Decode(&doc); err != nil {
		return err
	}
	c.parsed = true
	for _, is := range doc.Issues {
		if is.FromLinter == "typecheck" {
			n := 0
			for _, l := range strings.Split(is.Text, "\n") {
				l = strings.TrimPrefix(strings.TrimSpace(l), ": ")
				if f, ok := buildFinding(l, ""); ok {
					c.add(f)
					n++
				}
			}
			if n > 0 {
				continue
			}
		}
		f := evidence.Finding{Kind: evidence.KindLint, ID: is.FromLinter, File: is.Pos.Filename,
			Line: is.Pos.Line, Col: is.Pos.Column, Message: is.Text, Severity: lintSeverity(is.Severity)}
		if is.FromLinter == "typecheck" {
			f.Kind = evidence.KindBuild
		}
		c.add(f)
	}
	return nil
}

// lintSeverity maps a tool's severity word to ours; empty means error.
func lintSeverity(s string) string {
	switch strings.ToLower(s) {
	case "warning", "warn", "1", "medium", "low", "minor":
		return evidence.SeverityWarning
	case "info", "note", "hint", "none", "convention", "refactor":
		return evidence.SeverityInfo
	}
	return evidence.SeverityError
}
