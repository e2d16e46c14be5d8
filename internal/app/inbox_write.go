package app

import (
	"io"
	"time"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/inbox"
)

// WriteInbox writes what waits for a person as `agentloop inbox` shows it:
// each item's question, evidence and answers, paths relative to base.
func WriteInbox(w io.Writer, items []decision.Waiting, now time.Time, base string) error {
	return inbox.Write(w, items, now, base)
}

// WriteInboxJSON writes what waits for a person as JSON (inbox --json).
func WriteInboxJSON(w io.Writer, items []decision.Waiting) error { return inbox.WriteJSON(w, items) }
