package harness

import "testing"

// TestSeed: a campaign replays the seed of $AGENTLOOP_CAMPAIGN_SEED, refuses
// one that is not a number, and without one draws from its own.
func TestSeed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env     string
		want    uint64
		wantErr bool
	}{
		{env: "", want: 7},
		{env: "42", want: 42},
		{env: "18446744073709551615", want: 1<<64 - 1},
		{env: "-1", wantErr: true},
		{env: "seed", wantErr: true},
	} {
		got, err := Seed(func(k string) string {
			if k == SeedEnv {
				return tc.env
			}
			return ""
		}, 7)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("%s=%q: seed %d, error %v; want %d, error %t", SeedEnv, tc.env, got, err, tc.want, tc.wantErr)
		}
	}
}
