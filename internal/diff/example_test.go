package diff_test

import (
	"fmt"

	"github.com/agentloop/agentloop/internal/diff"
)

func ExampleAnalyze() {
	unified := `diff --git a/calc_test.go b/calc_test.go
--- a/calc_test.go
+++ b/calc_test.go
@@ -5,3 +5,3 @@ func TestDiv(t *testing.T) {
-	if Div(6, 3) != 2 {
-		t.Fatal("wrong")
-	}
+	t.Skip("later")
+	_ = Div(6, 3)
+	// TODO
`
	f := diff.Analyze(unified, diff.Options{ProtectedPaths: []string{"auth/**"}})
	fmt.Println(f.Files, f.Added, f.Deleted, f.SkipsAdded, f.AssertsRemoved)
	for _, t := range f.Tamper {
		fmt.Printf("%s %s:%d\n", t.ID, t.File, t.Line)
	}
	// Output:
	// [calc_test.go] 3 3 1 1
	// test_modified calc_test.go:5
	// skip_added calc_test.go:5
	// assert_removed calc_test.go:6
}
