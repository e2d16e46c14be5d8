//go:build !temporal

package temporal

import (
	"os"
	"testing"
)

// TestMain says whether the tests against a real Temporal server run here;
// the fleet tests, which run the agentloop command, need the temporal tag
// (fleet_test.go).
func TestMain(m *testing.M) {
	SayServerTier(false)
	os.Exit(m.Run())
}
