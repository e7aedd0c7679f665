package audit

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCanonicalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{}`, `{}`},
		{` { "b" : 1 , "a" : [ true , false , null ] } `, `{"a":[true,false,null],"b":1}`},
		{`{"b":{"z":1,"y":2},"a":"x"}`, `{"a":"x","b":{"y":2,"z":1}}`},
		{`{"é":1,"z":2,"A":3}`, `{"A":3,"z":2,"é":1}`}, // byte order: 'A' < 'z' < 0xC3
		{`[]`, `[]`},
		{`[ ]`, `[]`},
		{`"a\/b\u0041\n\t\u0001\"\\"`, `"a/bA\n\t\u0001\"\\"`},
		{`"\u00e9\ud83d\ude00"`, `"é😀"`},
		{`"<>&\u2028"`, "\"<>&\u2028\""},
		{`"\u001f\u007f"`, "\"\\u001f\u007f\""},
		{`12345678901234567890123`, `12345678901234567890123`},
		{`-0`, `0`},
		{`0`, `0`},
		{`-12`, `-12`},
		{`1.0`, `1`},
		{`1.50`, `1.5`},
		{`-0.0`, `0`},
		{`1e3`, `1000`},
		{`1E+21`, `1e+21`},
		{`0.000001`, `1e-06`},
		{`3.14159`, `3.14159`},
	}
	for _, tc := range tests {
		got, err := Canonicalize([]byte(tc.in))
		if err != nil {
			t.Errorf("Canonicalize(%s): %v", tc.in, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("Canonicalize(%s) = %s, want %s", tc.in, got, tc.want)
		}
		// Idempotent: canonical input comes back byte for byte.
		again, err := Canonicalize(got)
		if err != nil || string(again) != string(got) {
			t.Errorf("Canonicalize not idempotent on %s: %s, %v", got, again, err)
		}
	}
}

func TestCanonicalizeRejects(t *testing.T) {
	tests := []string{
		``, ` `, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `{a:1}`, `{"a":1}x`, `{"a":1}{}`,
		`'a'`, `01`, `1.`, `.5`, `1e`, `+1`, `NaN`, `Infinity`, `tru`, `nul`,
		`"abc`, "\"a\x01\"", `"\x"`, `"\u12"`, `"\ud800"`, `"\udc00"`, `"\ud800\u0041"`,
		"\"\xff\"", `{"a":1,"a":2}`, `1e400`,
		strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2),
	}
	for _, in := range tests {
		if got, err := Canonicalize([]byte(in)); err == nil {
			t.Errorf("Canonicalize(%q) = %s, want an error", in, got)
		} else if !errors.Is(err, errNotJSON) {
			t.Errorf("Canonicalize(%q) error %v does not wrap errNotJSON", in, err)
		}
	}
}

func FuzzCanonicalizeIdempotent(f *testing.F) {
	for _, s := range []string{`{"b":[1,2.5,"x"],"a":{"c":null}}`, `"\u0000"`, `-1e-7`, `[{}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := Canonicalize(in)
		if err != nil {
			return
		}
		// Whatever we accept, encoding/json accepts, with the same meaning.
		var a, b any
		if json.Unmarshal(in, &a) != nil || json.Unmarshal(c, &b) != nil {
			t.Fatalf("accepted %q as %q, which encoding/json rejects", in, c)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("canonical form changed the value: %q -> %q", in, c)
		}
		again, err := Canonicalize(c)
		if err != nil || string(again) != string(c) {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", in, c, again, err)
		}
	})
}
