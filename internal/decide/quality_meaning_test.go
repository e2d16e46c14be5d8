package decide

import (
	"fmt"
	"strings"
	"testing"
)

// The words a person reads about the quality score name the weights and the
// lint scale the score is computed with.
func TestQualityMeaningMatchesTheWeights(t *testing.T) {
	for _, want := range []string{
		fmt.Sprintf("(weight %.0f%%)", weightTests*100),
		fmt.Sprintf("(%.0f%%: %d or more findings count 0)", weightLint*100, lintScale),
		fmt.Sprintf("score (%.0f%%)", weightReview*100),
	} {
		if !strings.Contains(QualityMeaning, want) {
			t.Errorf("QualityMeaning lacks %q: %s", want, QualityMeaning)
		}
	}
}
