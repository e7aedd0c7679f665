// Package tomlkeys reads the keys a TOML file may hold from the Go type it
// decodes into (its toml tags), so an unknown key's error can say which
// keys its table takes and which one a typo most likely meant. The config
// and the policy files share it.
package tomlkeys

import (
	"fmt"
	"reflect"
	"strings"
)

// Suggest is what to add after "unknown key KEY" for a key of the table
// at path of root: the closest allowed key, when it looks like a typo of
// one, and every key allowed there ("" when the table is not known).
func Suggest(root reflect.Type, path []string, key string) string {
	allowed := Keys(root, path)
	if len(allowed) == 0 {
		return ""
	}
	msg := ""
	if near := Closest(key, allowed); near != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return msg + "; the keys allowed there are " + strings.Join(allowed, ", ")
}

// Keys lists the keys the table at path of root takes, in file order.
func Keys(root reflect.Type, path []string) []string {
	t, ok := TypeAt(root, path)
	if !ok {
		return nil
	}
	for t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// Closest is the allowed key a typo most likely meant: a few edits away
// (about a third of its length, at least two), or one that begins with the
// other.
func Closest(key string, allowed []string) string {
	key = strings.ToLower(key)
	best, bestD := "", 1<<30
	for _, a := range allowed {
		d := editDistance(key, a)
		if d > max(2, (len(a)+2)/3) && !prefixOf(key, a) {
			continue
		}
		if d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

// prefixOf reports whether one of a and b begins with the other, and the
// shorter has at least four letters.
func prefixOf(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return len(a) >= 4 && strings.HasPrefix(b, a)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// TypeAt finds the Go type behind a dotted key of root, through tables and arrays
// of tables.
func TypeAt(t reflect.Type, path []string) (reflect.Type, bool) {
	for _, part := range path {
		for t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil, false
		}
		f, ok := fieldByTag(t, part)
		if !ok {
			return nil, false
		}
		t = f.Type
	}
	return t, true
}

func fieldByTag(t reflect.Type, tag string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("toml"), ","); name == tag {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
