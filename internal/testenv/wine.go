package testenv

import "testing"

// SkipUnderWine skips the test when this test binary runs under Wine (a
// Windows build run on Linux: the wine tier, .ci/wine), saying why: what of
// Windows the test needs that Wine does not give.
func SkipUnderWine(t testing.TB, why string) {
	t.Helper()
	if underWine() {
		t.Skip("under Wine: " + why)
	}
}
