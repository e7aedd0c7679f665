package config

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/gatehouse-dev/gatehouse/backend/policy"
)

// hints say what a key takes, in the person's terms, where its type alone
// would not (a number of what). Keys are dotted paths as in the file.
var hints = map[string]string{
	"listen":                     `an address in quotes, e.g. "127.0.0.1:7465"`,
	"data":                       `a directory path in quotes`,
	"workspaces.roots":           `a list of directory paths, e.g. ["~/src"]`,
	"allowed_origins":            `a list of web origins, e.g. ["http://localhost:5173"]`,
	"max_connections":            "a whole number of connections",
	"approval_timeout_s":         "a number of seconds",
	"sandbox.container_cli":      `"docker" or "podman"`,
	"sandbox.container_args":     `a list of flags in quotes, e.g. ["--runtime", "runc"]`,
	"sandbox.container_run_args": `a list of flags in quotes, e.g. ["--ulimit", "nofile=1024"]`,
	"limits.max_calls":           "a whole number of calls (-1 for no limit)",
	"limits.wall_minutes":        "a number of minutes (-1 for no limit)",
	"limits.exec_minutes":        "a number of minutes (-1 for no limit)",
	"limits.output_mib":          "a number of MiB (-1 for no limit)",
	"snapshots.max_file_mib":     "a number of MiB",
	"snapshots.budget_mib":       "a number of MiB",
	"snapshots.exclude":          `a list of path patterns, e.g. ["node_modules", "*.log"]`,
	"secret.binaries":            `a list of absolute program paths, e.g. ["/usr/bin/gh"]`,
}

// describe turns a decode error into one sentence that names the file, the
// line and the key, and says what the key takes; go-toml's own text names
// Go types, which mean nothing to the person editing the file.
func describe(err error, name string) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		var keys []string
		for _, e := range strict.Errors {
			row, _ := e.Position()
			keys = append(keys, fmt.Sprintf("%q (line %d)", strings.Join(e.Key(), "."), row))
		}
		return fmt.Errorf("%s: unknown key %s; remove it or check its spelling: %w", name, strings.Join(keys, ", "), err)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		if key := strings.Join(de.Key(), "."); key != "" {
			return &keyError{msg: fmt.Sprintf("%s line %d: %s must be %s", name, row, key, want(key)), err: err}
		}
		return &keyError{msg: fmt.Sprintf("%s line %d is not valid TOML (%s); fix that line", name, row, firstLine(de.Error())), err: err}
	}
	return fmt.Errorf("%s: %w", name, err)
}

// keyError keeps go-toml's error for logs and errors.As while its message
// stays the one sentence for people.
type keyError struct {
	msg string
	err error
}

func (e *keyError) Error() string { return e.msg }
func (e *keyError) Unwrap() error { return e.err }

// want says what key takes: its hint, or what its type reads as.
func want(key string) string {
	if h, ok := hints[key]; ok {
		return h
	}
	switch key {
	case "mode":
		modes := map[string]bool{string(policy.ModeDefault): true}
		for _, m := range policy.Modes {
			modes[string(m)] = true
		}
		return choices(modes)
	case "sandbox.backend":
		return choices(validBackends)
	}
	t, ok := keyType(reflect.TypeOf(Config{}), strings.Split(key, "."))
	if !ok {
		return "a value of the kind the README shows for it"
	}
	return typeWords(t, key)
}

// keyType finds the Go type behind a dotted key, through tables and arrays
// of tables.
func keyType(t reflect.Type, path []string) (reflect.Type, bool) {
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

func typeWords(t reflect.Type, key string) string {
	last := key[strings.LastIndexByte(key, '.')+1:]
	switch t.Kind() {
	case reflect.String:
		return "text in quotes"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct {
			return fmt.Sprintf("a list of [[%s]] tables", key)
		}
		return "a list of values in quotes, e.g. [\"a\", \"b\"]"
	case reflect.Struct:
		return fmt.Sprintf("a table: a [%s] line with its keys below it", key)
	}
	return fmt.Sprintf("a value of the kind the README shows for %s", last)
}

// choices lists an enum's names ("" aside) for a hint.
func choices(valid map[string]bool) string {
	var names []string
	for n := range valid {
		if n != "" {
			names = append(names, strconv.Quote(n))
		}
	}
	slices.Sort(names)
	return "one of " + strings.Join(names, ", ")
}

func firstLine(s string) string {
	s = strings.TrimPrefix(s, "toml: ")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
