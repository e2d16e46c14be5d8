package state

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// NewRunID names a run by its start time plus a few random characters.
func NewRunID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
