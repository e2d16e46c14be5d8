package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string // key=raw value
		ok   bool
	}{
		{`{}`, nil, true},
		{" \t{ }\r\n", nil, true},
		{`{"a":1}`, []string{"a=1"}, true},
		{`{"a" : "x\"}" , "b":[1,{"c":"]"}],"d":null,"e":true}`, []string{`a="x\"}"`, `b=[1,{"c":"]"}]`, "d=null", "e=true"}, true},
		{`{"k\"ey":{"n":{}}}`, []string{`k\"ey={"n":{}}`}, true},
		{`{"s":"\\\\"}`, []string{`s="\\\\"`}, true},
		{`{"a":1} x`, []string{"a=1"}, false},   // something after the object
		{`{"a":1,"b":`, []string{"a=1"}, false}, // a cut line: what came before is kept
		{`{"a":1 "b":2}`, []string{"a=1"}, false},
		{`{"a":"open}`, nil, false},
		{`{a:1}`, nil, false},
		{`{"a"}`, nil, false},
		{`[1]`, nil, false},
		{``, nil, false},
		{`{"a":[1,2}`, []string{"a=[1,2}"}, false}, // nesting is counted, not matched: the object never closes
	}
	for _, tt := range tests {
		var got []string
		ok := Fields([]byte(tt.in), func(k, v []byte) bool {
			got = append(got, string(k)+"="+string(v))
			return true
		})
		if ok != tt.ok || !cmp.Equal(got, tt.want) {
			t.Errorf("Fields(%q) = %v %q, want %v %q", tt.in, ok, got, tt.ok, tt.want)
		}
	}
	n := 0
	if !Fields([]byte(`{"a":1,"b":2,"c":`), func(k, v []byte) bool { n++; return false }) || n != 1 {
		t.Errorf("Fields stopped by fn: read %d members or reported the rest as malformed", n)
	}
}

func TestMembers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		want  []string // key=value, strings unescaped and marked with '
		valid bool
	}{
		{`{}`, nil, true},
		{` { "A\u0063tion" : "p\u0061ss" , "n":1.5,"o":{"x":"}"}} `, []string{"Action='pass", "n=1.5", `o={"x":"}"}`}, true},
		{`{"a":1} x`, []string{"a=1"}, false},
		{`{} x`, nil, false},
		{`{"a":"x\q"}`, nil, false},
		{`{"a":1,"b"`, []string{"a=1"}, false},
		{`[1]`, nil, false},
		{``, nil, false},
	}
	for _, tt := range tests {
		var got []string
		m := NewMembers([]byte(tt.in))
		for {
			k, v, str, ok := m.Next()
			if !ok {
				break
			}
			sep := "="
			if str {
				sep = "='"
			}
			got = append(got, string(k)+sep+string(v))
		}
		if m.Valid() != tt.valid || !cmp.Equal(got, tt.want) {
			t.Errorf("Members(%q) = %v %q, want %v %q", tt.in, m.Valid(), got, tt.valid, tt.want)
		}
	}
}

func TestElements(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{`[]`, nil, true},
		{` [ ] `, nil, true},
		{`[1, "a]", {"b":[2]}, null]`, []string{"1", `"a]"`, `{"b":[2]}`, "null"}, true},
		{`[1,2] 3`, []string{"1", "2"}, false},
		{`[1,`, []string{"1"}, false},
		{`{}`, nil, false},
	}
	for _, tt := range tests {
		var got []string
		ok := Elements([]byte(tt.in), func(v []byte) { got = append(got, string(v)) })
		if ok != tt.ok || !cmp.Equal(got, tt.want) {
			t.Errorf("Elements(%q) = %v %q, want %v %q", tt.in, ok, got, tt.ok, tt.want)
		}
	}
}

func TestValues(t *testing.T) {
	t.Parallel()
	strs := []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`""`, ""},
		{`"a\nb\t\"c\"\\\/"`, "a\nb\t\"c\"\\/"},
		{`"\u00e9\u4e2d"`, "é中"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\ud83d"`, "\uFFFD"}, // a lone surrogate, as encoding/json reads it
		{`"\x"`, ""},
		{`"\u12"`, ""},
		{`"open`, ""},
		{`"a" "b"`, ""},
		{`12`, ""},
		{`null`, ""},
	}
	for _, tt := range strs {
		if got := Str([]byte(tt.in)); got != tt.want {
			t.Errorf("Str(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if s, ok := Unquote([]byte(`"no escapes"`)); !ok || string(s) != "no escapes" {
		t.Errorf("Unquote = %q, %v", s, ok)
	}
	nums := []struct {
		in   string
		want float64
		ok   bool
	}{{"12", 12, true}, {"-1.5e3", -1500, true}, {"null", 0, false}, {`"3"`, 0, false}, {"", 0, false}, {"1x", 0, false}}
	for _, tt := range nums {
		if got, ok := Num([]byte(tt.in)); got != tt.want || ok != tt.ok {
			t.Errorf("Num(%s) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if !Bool([]byte("true")) || Bool([]byte("false")) || Bool([]byte(`"true"`)) {
		t.Error("Bool: only the literal true is true")
	}
}

// FuzzFields checks the scanner against encoding/json: every valid object is
// read whole, with the same keys and values, every valid array with the same
// elements.
func FuzzFields(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":"x\"}","c":[1,{"d":"]"}],"e":null}`))
	f.Add([]byte(`{"type": "result", "s": "\\\\"}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"a":1`))     // ends after a value
	f.Add([]byte(`{"a":1 ,`))   // ends after a comma
	f.Add([]byte(`{"a" : [1,`)) // ends inside a value
	f.Add([]byte(`[1, "a", {"b": [2]}]`))
	f.Add([]byte(`{"Action":"output","Package":"p","Output":"--- FAIL: T\n\u00e9"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var keys []string
		var vals [][]byte
		ok := Fields(b, func(k, v []byte) bool {
			keys = append(keys, string(k))
			vals = append(vals, v)
			return true
		})
		var elems [][]byte
		aok := Elements(b, func(v []byte) { elems = append(elems, v) })
		if !json.Valid(b) {
			return
		}
		switch bytes.TrimSpace(b)[0] {
		case '{':
			d := json.NewDecoder(bytes.NewReader(b))
			_, _ = d.Token()
			var want []string
			var raws []json.RawMessage
			for d.More() {
				k, _ := d.Token()
				want = append(want, k.(string))
				var raw json.RawMessage
				_ = d.Decode(&raw)
				raws = append(raws, raw)
			}
			if !ok || len(keys) != len(want) {
				t.Fatalf("Fields(%q) = %v with %d members, want %d", b, ok, len(keys), len(want))
			}
			m := NewMembers(b)
			for i := 0; ; i++ {
				key, val, str, ok := m.Next()
				if !ok {
					if !m.Valid() || i != len(want) {
						t.Fatalf("Members(%q): %d members, valid %v; want %d", b, i, m.Valid(), len(want))
					}
					break
				}
				if utf8.Valid(b) && string(key) != want[i] {
					t.Errorf("Members key %d = %q, want %q", i, key, want[i])
				}
				if !str && !bytes.Equal(val, raws[i]) {
					t.Errorf("Members value %d = %q, want %q", i, val, raws[i])
				}
				var sv string
				if str && utf8.Valid(b) && (json.Unmarshal(raws[i], &sv) != nil || sv != string(val)) {
					t.Errorf("Members string %d = %q, want %q", i, val, sv)
				}
			}
			for i := range want {
				var k string
				if json.Unmarshal([]byte(`"`+keys[i]+`"`), &k) != nil || k != want[i] {
					t.Errorf("key %d = %q, want %q", i, keys[i], want[i])
				}
				if !bytes.Equal(vals[i], raws[i]) {
					t.Errorf("value %d = %q, want %q", i, vals[i], raws[i])
				}
			}
		case '[':
			var raws []json.RawMessage
			_ = json.Unmarshal(b, &raws)
			if !aok || len(elems) != len(raws) {
				t.Fatalf("Elements(%q) = %v with %d elements, want %d", b, aok, len(elems), len(raws))
			}
			for i := range raws {
				if !bytes.Equal(elems[i], raws[i]) {
					t.Errorf("element %d = %q, want %q", i, elems[i], raws[i])
				}
			}
		}
	})
}

// FuzzString checks the unescaping against encoding/json on every string it
// accepts (encoding/json also replaces invalid UTF-8, which the scanner keeps).
func FuzzString(f *testing.F) {
	for _, s := range []string{`"a"`, `"a\nb\"c\\"`, `"\u00e9\ud83d\ude00"`, `"\ud800x"`, `"\u0041\/"`, `"tab	in"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotOK := Unquote(b)
		end, skipOK := SkipString(b, 0)
		var want string
		if len(b) == 0 || b[0] != '"' || b[len(b)-1] != '"' || json.Unmarshal(b, &want) != nil {
			return
		}
		if !gotOK || !skipOK || end != len(b) {
			t.Fatalf("Unquote(%q) = %v, SkipString to %d of %d (%v): encoding/json reads it", b, gotOK, end, len(b), skipOK)
		}
		if utf8.Valid(b) && string(got) != want {
			t.Errorf("Unquote(%q) = %q, want %q", b, got, want)
		}
	})
}
