package tomlkeys

import (
	"reflect"
	"testing"
)

type file struct {
	Mode  string `toml:"mode"`
	Rules []struct {
		ID     string `toml:"id"`
		Binary string `toml:"binary"`
	} `toml:"rule"`
	Limits struct {
		MaxCalls int `toml:"max_calls"`
	} `toml:"limits"`
}

func TestSuggest(t *testing.T) {
	root := reflect.TypeOf(file{})
	for _, tc := range []struct {
		path []string
		key  string
		want string
	}{
		{nil, "mdoe", ` (did you mean "mode"?); the keys allowed there are mode, rule, limits`},
		{[]string{"rule"}, "binnary", ` (did you mean "binary"?); the keys allowed there are id, binary`},
		{[]string{"limits"}, "colour", `; the keys allowed there are max_calls`},
		{[]string{"limits"}, "max_c", ` (did you mean "max_calls"?); the keys allowed there are max_calls`},
		{[]string{"nope"}, "x", ""},
	} {
		if got := Suggest(root, tc.path, tc.key); got != tc.want {
			t.Errorf("%v %q: %q, want %q", tc.path, tc.key, got, tc.want)
		}
	}
}
