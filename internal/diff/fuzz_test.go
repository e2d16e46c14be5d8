package diff

import (
	"slices"
	"strings"
	"testing"
)

func FuzzAnalyze(f *testing.F) {
	f.Add(mk(fd{path: "x_test.go", lines: []string{" func TestX(t *testing.T) {", "+\tt.Skip()", "-\tt.Fatal(1)", " }"}}), "auth/**")
	f.Add(mk(fd{path: "go.mod", lines: []string{" require (", "+\tgithub.com/a/b v1.0.0", " )"}}), "**/*.mod")
	f.Add(mk(fd{path: "package.json", status: "new", lines: []string{"+{", "+  \"dependencies\": {", "+    \"x\": \"1\"", "+  }", "+}"}}), "")
	f.Add("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n", "*")
	f.Add("diff --git \"a/\\303\" \"b/\\303\"\nrename from x\nrename to y\nBinary files differ\n", "[")
	f.Add("@@ -2147483647,2147483647 +0,0 @@\n-\n", "**/**/**")
	f.Fuzz(func(t *testing.T, unified, glob string) {
		o := Options{ProtectedPaths: []string{glob}, Scope: []string{glob}, TestGlobs: []string{glob}}
		got := Analyze(unified, o)
		if got.Added < 0 || got.Deleted < 0 || got.SkipsAdded < 0 || got.AssertsRemoved < 0 || got.SecretsFound < 0 {
			t.Fatalf("negative count: %+v", got)
		}
		if (got.Hash == "") != (len(got.Files) == 0) {
			t.Fatalf("Hash %q with files %q", got.Hash, got.Files)
		}
		for _, list := range [][]string{got.Files, got.TestFilesChanged, got.TestFilesDeleted, got.ProtectedTouched, got.OutsideScope, got.NewDeps, got.ExportedChanged} {
			if !slices.IsSorted(list) || len(slices.Compact(slices.Clone(list))) != len(list) {
				t.Fatalf("not sorted and unique: %q", list)
			}
		}
		if got.Added+got.Deleted > strings.Count(unified, "\n")+1 {
			t.Fatalf("more changed lines (%d) than input lines", got.Added+got.Deleted)
		}
		if again := Analyze(unified, o); again.Hash != got.Hash {
			t.Fatal("Analyze is not deterministic")
		}
		// The glob is both the protected paths and the scope: each changed file is
		// protected exactly when it matches, outside the scope exactly when not,
		// and nothing else is listed as either.
		for _, p := range got.Files {
			if Glob(glob, p) != slices.Contains(got.ProtectedTouched, p) {
				t.Fatalf("Glob(%q, %q) = %v but ProtectedTouched = %q", glob, p, Glob(glob, p), got.ProtectedTouched)
			}
			if Glob(glob, p) == slices.Contains(got.OutsideScope, p) {
				t.Fatalf("Glob(%q, %q) = %v but OutsideScope = %q", glob, p, Glob(glob, p), got.OutsideScope)
			}
		}
		for _, p := range got.ProtectedTouched {
			if !Glob(glob, p) {
				t.Fatalf("%q listed as protected, does not match %q", p, glob)
			}
		}
		for _, p := range got.OutsideScope {
			if Glob(glob, p) {
				t.Fatalf("%q listed outside the scope, matches %q", p, glob)
			}
		}
	})
}

// BenchmarkAnalyze measures a worst case: 200 test files of 250 changed lines,
// every removed line an assertion (about 0.4 s of CPU for 2.4 MB on one core).
func BenchmarkAnalyze(b *testing.B) {
	var files []fd
	for i := range 200 {
		lines := make([]string, 0, 250)
		for j := range 125 {
			lines = append(lines, "-\tif got := f("+strings.Repeat("x", j%40)+"); got != want { t.Errorf(\"bad\") }", "+\treturn value + 1 // changed")
		}
		files = append(files, fd{path: "pkg/p" + strings.Repeat("a", i%7) + "/f_test.go", lines: lines})
	}
	in := mk(files...)
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for b.Loop() {
		Analyze(in, Options{ProtectedPaths: []string{"auth/**", ".github/**"}, Scope: []string{"pkg/**"}})
	}
}
