package fakeagent

import (
	"bytes"
	"strings"
	"testing"

	agentpkg "github.com/agentloop/agentloop/internal/agent"
)

// TestFloodShapes checks the output of each flood action: its size, its
// newlines, and for flood-deltas a Claude stream whose usage agentloop reads
// exactly.
func TestFloodShapes(t *testing.T) {
	t.Parallel()
	inv := newInvocation(t, "flood-raw 100K\n")
	code, out, errs := inv.run("")
	if code != 0 || len(out) != 100<<10 || strings.Contains(out, "\n") {
		t.Errorf("flood-raw: exit %d, %d bytes, %d newlines, stderr %q", code, len(out), strings.Count(out, "\n"), errs)
	}
	inv.plan(t, "flood 100K\n")
	code, out, _ = inv.run("")
	if code != 0 || len(out) != 100<<10 || strings.Count(out, "\n") < 1500 {
		t.Errorf("flood: exit %d, %d bytes, %d newlines", code, len(out), strings.Count(out, "\n"))
	}
	inv.plan(t, "flood-deltas 200K\n")
	code, out, _ = inv.run("")
	if code != 0 || len(out) < 200<<10 || len(out) > 240<<10 {
		t.Fatalf("flood-deltas: exit %d, %d bytes", code, len(out))
	}
	p, err := agentpkg.NewParser(agentpkg.FormatClaudeStream)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix([]byte(out), []byte("\n")), []byte("\n"))
	for _, l := range lines[:len(lines)-1] {
		p.Line(l)
	}
	msgs := int64(strings.Count(out, `"type":"assistant"`))
	if u := p.Live().Usage; msgs < 2 || !u.TokensKnown || u.InputTokens != 10*msgs || u.OutputTokens != 100*msgs {
		t.Errorf("flood-deltas: live usage %+v after %d messages", u, msgs)
	}
	if d := strings.Count(out, "content_block_delta"); int64(d) != deltasPerMessage*msgs {
		t.Errorf("flood-deltas: %d deltas in %d messages", d, msgs)
	}
	p.Line(lines[len(lines)-1])
	if o := p.Result(); !o.Terminal || o.IsError || o.Usage.Turns != int(msgs) || o.Usage.OutputTokens != 100*msgs {
		t.Errorf("flood-deltas: result %+v", o)
	}
}
