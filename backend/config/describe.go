package config

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/gatehouse-dev/gatehouse/backend/plural"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/tomlkeys"
)

// hints say what a key takes, in the person's terms, where its type alone
// would not (a number of what). Keys are dotted paths as in the file.
var hints = map[string]string{
	"listen":                     `an address in quotes, e.g. "127.0.0.1:7465"`,
	"public":                     "true or false (the whole daemon on --listen), or a [public] table",
	"public.tunnel":              `a program and its arguments in quotes, e.g. ["mytunnel", "{port}"]`,
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
	"limits.tokens":              "a whole number of tokens (0 or -1 for no token budget)",
	"snapshots.max_file_mib":     "a number of MiB",
	"snapshots.budget_mib":       "a number of MiB",
	"snapshots.exclude":          `a list of path patterns, e.g. ["node_modules", "*.log"]`,
	"export.otlp_endpoint":       `a collector's address in quotes, e.g. "http://127.0.0.1:4318"`,
	"export.otlp_headers":        `a table of header names and values, e.g. { "authorization" = "Bearer …" }`,
	"export.ocsf_file":           `an absolute file path in quotes`,
	"export.max_backlog":         "a whole number of events",
	"network.host_ports":         "a list of port numbers, e.g. [5432, 6379]",
	"secret.binaries":            `a list of absolute program paths, e.g. ["/usr/bin/gh"]`,
}

// describe turns a decode error into one sentence that names the file, the
// line and the key, and says what the key takes; go-toml's own text names
// Go types, which mean nothing to the person editing the file.
func describe(err error, name string) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		return &keyError{msg: unknownKey(strict, name), err: err}
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

// unknownKey says, in one sentence, which key of the file is unknown, on
// which line, and which keys its table takes (and the closest of them when
// the key looks like a misspelling of one).
func unknownKey(strict *toml.StrictMissingError, name string) string {
	e := &strict.Errors[0]
	row, _ := e.Position()
	path := e.Key()
	key, table := path[len(path)-1], path[:len(path)-1]
	where := "at the top level"
	if len(table) > 0 {
		where = "in [" + strings.Join(table, ".") + "]"
	}
	msg := fmt.Sprintf("%s line %d: unknown key %q %s", name, row, key, where) + tomlkeys.Suggest(reflect.TypeOf(Config{}), table, key)
	if more := len(strict.Errors) - 1; more > 0 {
		msg += " (and " + plural.Count(more, "more unknown key", "more unknown keys") + " after it)"
	}
	return msg
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
	t, ok := tomlkeys.TypeAt(reflect.TypeOf(Config{}), strings.Split(key, "."))
	if !ok {
		return "a value of the kind the README shows for it"
	}
	return typeWords(t, key)
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
