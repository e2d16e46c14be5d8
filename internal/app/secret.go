package app

import (
	"strings"

	"github.com/agentloop/agentloop/internal/redact"
	"github.com/agentloop/agentloop/internal/textcut"
)

// RedactSecrets is a flag's value as a run records it: each credential it
// holds (a gate's `curl -H "Authorization: token ghp_…"`) replaced by the
// redaction marker, so the state does not keep it.
func RedactSecrets(v string) string {
	var secrets *redact.Redactor // credential shapes
	return secrets.String(v)
}

// RedactedSecret reports whether a recorded flag's value had a credential
// redacted ([RedactSecrets]), and the value cut short for a message.
func RedactedSecret(v string) (shown string, ok bool) {
	return textcut.Runes(v, 120), strings.Contains(v, redact.Marker)
}
