package testenv

import "testing"

// Wine reports whether this test binary runs under Wine (a Windows build
// run on Linux: the wine tier, .ci/wine), which hosts most of Windows but
// not all of it.
func Wine() bool { return underWine() }

// SkipUnderWine skips the test under Wine, saying why: what of Windows the
// test needs that Wine does not give.
func SkipUnderWine(t testing.TB, why string) {
	t.Helper()
	if underWine() {
		t.Skip("under Wine: " + why)
	}
}
