package main

import (
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

const sample = `package p

import "strings"

func f(a, b int, s string) bool {
	a++
	if a < b && s == "x"+s {
		return -a > 2
	}
	return strings.HasPrefix(s, "y") || 1.5 != float64(b)*2
}
`

func TestMutants(t *testing.T) {
	t.Parallel()
	ms, err := Mutants("p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Old+"→"+m.New)
		mut, err := Apply([]byte(sample), m)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "p.go", mut, 0); err != nil {
			t.Errorf("%s does not parse: %v", m, err)
		}
		if string(mut) == sample {
			t.Errorf("%s changes nothing", m)
		}
	}
	want := []string{"++→--", "&&→||", "<→<=", "<→>=", "==→!=", ">→>=", ">→<=", "-→ ", "2→3",
		"||→&&", "!=→==", "1.5→15", "*→/", "2→3"}
	if !slices.Equal(got, want) {
		t.Errorf("mutants\n got %q\nwant %q", got, want)
	}
}

func TestApplyRefusesAStaleMutant(t *testing.T) {
	t.Parallel()
	if _, err := Apply([]byte("a < b"), Mutant{Off: 2, Old: ">", New: ">="}); err == nil {
		t.Error("Apply put a mutant where its operator is not")
	}
}

func TestSampleIsStable(t *testing.T) {
	t.Parallel()
	ms := make([]Mutant, 100)
	for i := range ms {
		ms[i].Line = i
	}
	a, b := Sample(ms, 10, 7), Sample(ms, 10, 7)
	if len(a) != 10 || !slices.Equal(a, b) {
		t.Errorf("samples differ or have the wrong size: %v, %v", a, b)
	}
	if !slices.IsSortedFunc(a, func(x, y Mutant) int { return x.Line - y.Line }) {
		t.Error("sample not in file order")
	}
	if len(Sample(ms, 0, 1)) != 100 || len(Sample(ms, 500, 1)) != 100 {
		t.Error("n ≤ 0 or n ≥ len should take all")
	}
}
