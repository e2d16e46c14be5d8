package temporal

import (
	"flag"
	"os/exec"
	"testing"

	"github.com/agentloop/agentloop/internal/testenv"
)

// SayServerTier says whether the tests against a real Temporal dev server
// (the temporal CLI on PATH) run in this test binary, and the fleet tests
// (fleet says whether it was built with them).
func SayServerTier(fleet bool) {
	const tier = "Temporal (a real dev server)"
	if !flag.Parsed() {
		flag.Parse()
	}
	switch _, err := exec.LookPath("temporal"); {
	case err != nil:
		testenv.SayTier(tier, false, "the temporal CLI is not on PATH: .ci/run builds it")
	case testing.Short():
		testenv.SayTier(tier, false, "-short")
	case fleet:
		testenv.SayTier(tier, true, "with the fleet tests")
	default:
		testenv.SayTier(tier, true, "the fleet tests need -tags temporal")
	}
}
