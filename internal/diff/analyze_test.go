package diff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentloop/agentloop/internal/evidence"
)

func TestAnalyzeCounts(t *testing.T) {
	t.Parallel()
	d := mk(
		fd{path: "a.go", lines: []string{" package a", "-var x = 1", "+var x = 2", "+var y = 3"}},
		fd{path: "docs/new.md", status: "new", lines: []string{"+# new", "+text"}},
		fd{path: "old.txt", status: "deleted", lines: []string{"-bye"}},
	)
	got := Analyze(d, Options{})
	want := evidence.DiffFacts{Files: []string{"a.go", "docs/new.md", "old.txt"}, Added: 4, Deleted: 2}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(evidence.DiffFacts{}, "Hash")); diff != "" {
		t.Errorf("Analyze (-want +got):\n%s", diff)
	}
	if len(got.Hash) != 64 {
		t.Errorf("Hash = %q", got.Hash)
	}
	if e := Analyze("", Options{}); !e.Empty() || e.Hash != "" {
		t.Errorf("Analyze(\"\") = %+v, want empty", e)
	}
}

func TestHash(t *testing.T) {
	t.Parallel()
	a := fd{path: "a.go", lines: []string{" func f() {", "-\treturn 1", "+\treturn 2", " }"}}
	b := fd{path: "b.go", lines: []string{"+x := 1"}}
	base := Analyze(mk(a, b), Options{}).Hash
	tests := []struct {
		name string
		diff string
		same bool
	}{
		{"files in another order", mk(b, a), true},
		{"whitespace differs", mk(fd{path: "a.go", lines: []string{" func f() {", "-    return 1", "+  return   2", " }"}}, b), true},
		{"context differs", mk(fd{path: "a.go", lines: []string{" func g() {", "-\treturn 1", "+\treturn 2", " }"}}, b), true},
		{"hunks in another order", mk(fd{path: "c.go", lines: []string{"+one", "@@", "+two"}}), false},
		{"content differs", mk(fd{path: "a.go", lines: []string{"-\treturn 1", "+\treturn 3"}}, b), false},
		{"other file", mk(fd{path: "z.go", lines: a.lines}, b), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Analyze(tt.diff, Options{}).Hash
			if (got == base) != tt.same {
				t.Errorf("hash equal = %v, want %v", got == base, tt.same)
			}
		})
	}
	one := Analyze(mk(fd{path: "c.go", lines: []string{"+one", "@@", "+two"}}), Options{}).Hash
	two := Analyze(mk(fd{path: "c.go", lines: []string{"+two", "@@", "+one"}}), Options{}).Hash
	if one != two {
		t.Error("sorted hunks: the same hunks in another order hash differently")
	}
	ws := Analyze(mk(fd{path: "a.go", lines: []string{"-x  =  1", "+x = 1"}}), Options{}).Hash
	nothing := Analyze(mk(fd{path: "a.go", lines: nil}), Options{}).Hash
	if ws != nothing {
		t.Error("a whitespace-only change does not hash as no change to the file")
	}
}

func TestTestFiles(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"pkg/x_test.go": true, "src/a.test.ts": true, "src/a.spec.js": true, "web/App.test.tsx": true,
		"test_foo.py": true, "pkg/foo_test.py": true, "tests/integration.rs": true, "tests/helpers.py": true,
		"src/__tests__/a.js": true, "spec/models/user_spec.rb": true, "src/test/java/FooTest.java": true,
		"pkg/testdata/in.txt": true, "conftest.py": true,
		"pkg/x.go": false, "src/attest.go": false, "testing.md": false, "src/contest.py": false, "latest/a.go": false,
	}
	for p, want := range tests {
		if got := isTestFile(p); got != want {
			t.Errorf("isTestFile(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestTamper(t *testing.T) {
	t.Parallel()
	type tamper struct {
		ID   string
		File string
		Line int
	}
	tests := []struct {
		name    string
		diff    string
		o       Options
		want    []tamper
		changed []string
		deleted []string
		skips   int
		asserts int
	}{
		{
			name:    "go skip and removed assertion",
			diff:    mk(fd{path: "x_test.go", lines: []string{" func TestX(t *testing.T) {", "+\tt.Skip(\"flaky\")", "-\tif got != 1 { t.Errorf(\"got %d\", got) }", " }"}}),
			want:    []tamper{{TamperTestModified, "x_test.go", 2}, {TamperSkipAdded, "x_test.go", 2}, {TamperAssertRemoved, "x_test.go", 2}},
			changed: []string{"x_test.go"}, skips: 1, asserts: 1,
		},
		{
			name:    "rewritten assertion is not removed",
			diff:    mk(fd{path: "a.test.ts", lines: []string{"-  expect(sum(1, 2)).toBe(3)", "+  expect(sum(1, 2)).toEqual(3)"}}),
			want:    []tamper{{TamperTestModified, "a.test.ts", 1}},
			changed: []string{"a.test.ts"},
		},
		{
			name: "js skips and focus",
			diff: mk(fd{path: "src/a.spec.js", lines: []string{"+it.skip('a', () => {})", "+describe.skip('b', f)", "+xit('c', f)", "+test.todo('d')", "+fit('e', f)", "+describe.only('f', g)"}}),
			want: []tamper{{TamperTestModified, "src/a.spec.js", 1}, {TamperSkipAdded, "src/a.spec.js", 1}, {TamperSkipAdded, "src/a.spec.js", 2},
				{TamperSkipAdded, "src/a.spec.js", 3}, {TamperSkipAdded, "src/a.spec.js", 4}, {TamperSkipAdded, "src/a.spec.js", 5}, {TamperSkipAdded, "src/a.spec.js", 6}},
			changed: []string{"src/a.spec.js"}, skips: 6,
		},
		{
			name: "python skips and asserts",
			diff: mk(fd{path: "tests/test_api.py", status: "", lines: []string{"+@pytest.mark.skip(reason='later')", "+@unittest.skip('x')", " def test_a():", "-    assert a == 1", "-    self.assertEqual(a, 1)", "+    pass"}}),
			want: []tamper{{TamperTestModified, "tests/test_api.py", 1}, {TamperSkipAdded, "tests/test_api.py", 1}, {TamperSkipAdded, "tests/test_api.py", 2},
				{TamperAssertRemoved, "tests/test_api.py", 2}, {TamperAssertRemoved, "tests/test_api.py", 3}},
			changed: []string{"tests/test_api.py"}, skips: 2, asserts: 2,
		},
		{
			name:  "rust ignore and assert_eq in src",
			diff:  mk(fd{path: "src/lib.rs", lines: []string{"     #[test]", "+    #[ignore]", "     fn adds() {", "-        assert_eq!(add(1, 2), 3);", "     }"}}),
			want:  []tamper{{TamperSkipAdded, "src/lib.rs", 2}, {TamperAssertRemoved, "src/lib.rs", 3}},
			skips: 1, asserts: 1,
		},
		{
			name:    "deleted test file counts once",
			diff:    mk(fd{path: "pkg/a_test.go", status: "deleted", lines: []string{"-func TestA(t *testing.T) {", "-\tt.Fatal(\"x\")", "-}"}}),
			want:    []tamper{{TamperTestDeleted, "pkg/a_test.go", 0}},
			changed: []string{"pkg/a_test.go"}, deleted: []string{"pkg/a_test.go"},
		},
		{
			name:    "new test file is not tampering",
			diff:    mk(fd{path: "pkg/b_test.go", status: "new", lines: []string{"+func TestB(t *testing.T) {", "+\tt.Fatal(\"x\")", "+}"}}),
			changed: []string{"pkg/b_test.go"},
		},
		{
			name:    "golden file",
			diff:    mk(fd{path: "cmd/testdata/TestHelp.golden", lines: []string{"-usage: old", "+usage: new"}}, fd{path: "ui/__snapshots__/a.test.ts.snap", lines: []string{"+x"}}),
			want:    []tamper{{TamperGoldenModified, "cmd/testdata/TestHelp.golden", 1}, {TamperGoldenModified, "ui/__snapshots__/a.test.ts.snap", 1}},
			changed: []string{"cmd/testdata/TestHelp.golden", "ui/__snapshots__/a.test.ts.snap"},
		},
		{
			name:    "a build constraint added to a test file",
			diff:    mk(fd{path: "pkg/a_test.go", lines: []string{"+//go:build never", "+", " package a"}}, fd{path: "pkg/b_test.go", status: "new", lines: []string{"+//go:build integration", "+package a"}}),
			want:    []tamper{{TamperTestModified, "pkg/a_test.go", 1}, {TamperSkipAdded, "pkg/a_test.go", 1}},
			changed: []string{"pkg/a_test.go", "pkg/b_test.go"}, skips: 1,
		},
		{
			name: "skip in production code is ignored",
			diff: mk(fd{path: "pkg/a.go", lines: []string{"+\tt.Skip()", "-\tassert(x)"}}),
		},
		{
			name:    "user test globs",
			diff:    mk(fd{path: "checks/login.check.js", lines: []string{"-  expect(a).toBe(1)"}}),
			o:       Options{TestGlobs: []string{"checks/**"}},
			want:    []tamper{{TamperTestModified, "checks/login.check.js", 1}, {TamperAssertRemoved, "checks/login.check.js", 1}},
			changed: []string{"checks/login.check.js"}, asserts: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Analyze(tt.diff, tt.o)
			var gotT []tamper
			for _, f := range got.Tamper {
				if f.Kind != evidence.KindTamper || f.Message == "" || f.Severity == "" {
					t.Errorf("incomplete finding %+v", f)
				}
				gotT = append(gotT, tamper{f.ID, f.File, f.Line})
			}
			if diff := cmp.Diff(tt.want, gotT); diff != "" {
				t.Errorf("tamper findings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.changed, got.TestFilesChanged); diff != "" {
				t.Errorf("TestFilesChanged (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.deleted, got.TestFilesDeleted); diff != "" {
				t.Errorf("TestFilesDeleted (-want +got):\n%s", diff)
			}
			if got.SkipsAdded != tt.skips || got.AssertsRemoved != tt.asserts {
				t.Errorf("skips, asserts = %d, %d; want %d, %d", got.SkipsAdded, got.AssertsRemoved, tt.skips, tt.asserts)
			}
		})
	}
}

func TestProtectedAndScope(t *testing.T) {
	t.Parallel()
	d := mk(fd{path: "auth/token.go", lines: []string{"+x"}}, fd{path: ".github/workflows/ci.yml", lines: []string{"+y"}},
		fd{path: "internal/api/h.go", lines: []string{"+z"}}, fd{path: "README.md", lines: []string{"+w"}})
	d += "diff --git a/old/place.go b/internal/api/moved.go\nsimilarity index 100%\nrename from old/place.go\nrename to internal/api/moved.go\n"
	got := Analyze(d, Options{ProtectedPaths: []string{"auth/**", ".github/**", "go.mod"}, Scope: []string{"internal/**", "*.md"}})
	if diff := cmp.Diff([]string{".github/workflows/ci.yml", "auth/token.go"}, got.ProtectedTouched); diff != "" {
		t.Errorf("ProtectedTouched (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".github/workflows/ci.yml", "auth/token.go", "old/place.go"}, got.OutsideScope); diff != "" {
		t.Errorf("OutsideScope (-want +got):\n%s", diff)
	}
	if !strings.Contains(strings.Join(got.Files, " "), "internal/api/moved.go") {
		t.Errorf("Files = %v, want the renamed file", got.Files)
	}
}

func TestTestsRemoved(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		diff string
		want []string
	}{
		{name: "go tests deleted", diff: mk(fd{path: "pkg/a_test.go", lines: []string{"-func TestA(t *testing.T) {", "-\tt.Fatal(\"a\")", "-}", "-func BenchmarkB(b *testing.B) {}", "-func helper() {}"}}),
			want: []string{"TestA", "BenchmarkB"}},
		{name: "a test rewritten in place is kept", diff: mk(fd{path: "pkg/a_test.go", lines: []string{"-func TestA(t *testing.T) {", "+func TestA(t *testing.T) { // now table-driven"}})},
		{name: "a deleted test file loses its tests", diff: mk(fd{path: "tests/test_parse.py", status: "deleted", lines: []string{"-def test_parse():", "-    assert parse('1') == 1"}}),
			want: []string{"test_parse"}},
		{name: "js it and test", diff: mk(fd{path: "src/a.test.ts", lines: []string{"-  it('parses a number', () => {", "-test(\"rejects junk\", () => {"}}),
			want: []string{"parses a number", "rejects junk"}},
		{name: "a test moved to another file is kept", diff: mk(fd{path: "pkg/a_test.go", lines: []string{"-func TestA(t *testing.T) {}"}}, fd{path: "pkg/b_test.go", status: "new", lines: []string{"+func TestA(t *testing.T) {}"}})},
		{name: "production code is not a test", diff: mk(fd{path: "pkg/a.go", lines: []string{"-func TestHelper() {}"}})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Analyze(tt.diff, Options{}).TestsRemoved); diff != "" {
				t.Errorf("TestsRemoved (-want +got):\n%s", diff)
			}
		})
	}
}
