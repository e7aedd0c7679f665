package config

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/tomlkeys"
)

func TestTypeErrorsNameTheKeyAndTheFix(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"approval_timeout_s = \"120\"\n", "cfg.toml line 1: approval_timeout_s must be a number of seconds"},
		{"approval_timeout_s = 1.5\n", "approval_timeout_s must be a number of seconds"},
		{"approval_timeout_s = 99999999999999999999\n", "approval_timeout_s must be a number of seconds"},
		{"public = \"yes\"\n", "public must be true or false (the whole daemon on --listen), or a [public] table"},
		{"listen = 7465\n", `listen must be an address in quotes, e.g. "127.0.0.1:7465"`},
		{"[workspaces]\nroots = \"/src/app\"\n", `workspaces.roots must be a list of directory paths`},
		{"[workspaces]\nroots = [1]\n", `workspaces.roots must be a list of directory paths`},
		{"workspaces = [\"/src\"]\n", `is now a table`},
		{"sandbox = 3\n", "sandbox must be a table: a [sandbox] line with its keys below it"},
		{"[limits]\nmax_calls = \"x\"\n", "cfg.toml line 2: limits.max_calls must be a whole number of calls (-1 for no limit)"},
		{"[[secret]]\nname = 1\n", "secret.name must be text in quotes"},
		{"secret = 1\n", "secret must be a list of [[secret]] tables"},
		{"[snapshots]\nexclude = [1, 2]\n", "snapshots.exclude must be a list of path patterns"},
		{"[sandbox]\ncontainer_args = \"--x\"\n", "sandbox.container_args must be a list of flags in quotes"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in), "cfg.toml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v\nwant it to say %q", tt.in, err, tt.want)
		}
	}
}

// goWords are what go-toml's own messages carry and people cannot act on.
var goWords = regexp.MustCompile(`\b(int|int64|string|bool|struct|float64)\b|\[\]|config\.|secrets\.|of type|struct field`)

// Every key, given a value of the wrong type, gets one sentence naming the
// key and what it takes, with no Go type names.
func TestEveryKeyTypeError(t *testing.T) {
	for _, k := range leafKeys(reflect.TypeOf(Config{}), "") {
		in := tomlFor(k.path, wrongValue(k.typ))
		_, err := Parse([]byte(in), "cfg.toml")
		if err == nil {
			t.Errorf("%s: wrong type accepted:\n%s", k.path, in)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, k.path+" must be ") {
			t.Errorf("%s: error does not name the key and what it takes: %s", k.path, msg)
		}
		if goWords.MatchString(msg) || strings.Contains(msg, "\n") {
			t.Errorf("%s: error is not one plain sentence: %q", k.path, msg)
		}
	}
}

type leaf struct {
	path string
	typ  reflect.Type
}

// leafKeys lists every key of the file, tables included, by dotted path.
func leafKeys(t reflect.Type, prefix string) []leaf {
	var out []leaf
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			continue
		}
		path := prefix + name
		out = append(out, leaf{path, f.Type})
		ft := f.Type
		if ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			out = append(out, leafKeys(ft, path+".")...)
		}
	}
	return out
}

func wrongValue(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String, reflect.Struct, reflect.Slice:
		return "1"
	}
	return `"x"`
}

// tomlFor writes key = value under the tables its path names; a key inside
// an array of tables goes in one [[table]].
func tomlFor(path, value string) string {
	parts := strings.Split(path, ".")
	if len(parts) == 1 {
		return path + " = " + value + "\n"
	}
	table := strings.Join(parts[:len(parts)-1], ".")
	if t, ok := tomlkeys.TypeAt(reflect.TypeOf(Config{}), parts[:len(parts)-1]); ok && t.Kind() == reflect.Slice {
		return "[[" + table + "]]\n" + parts[len(parts)-1] + " = " + value + "\n"
	}
	return "[" + table + "]\n" + parts[len(parts)-1] + " = " + value + "\n"
}

// An unknown key is one sentence: the file, the line, the key, the table
// it sits in and the keys that table takes; no go-toml wording.
func TestUnknownKeyNamesTheKeyLineAndAllowedKeys(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"top level", "listen = \"127.0.0.1:7465\"\nworkspace = []\n", []string{
			`cfg.toml line 2: unknown key "workspace" at the top level (did you mean "workspaces"?)`,
			"the keys allowed there are listen, data, workspaces, public, allowed_origins, max_connections, mode, sandbox, network, secret, limits, snapshots, approval_timeout_s, max_pending_per_session"}},
		{"in a table", "[sandbox]\nbackend = \"bwrap\"\n\nexpose_secret = []\n", []string{
			`cfg.toml line 4: unknown key "expose_secret" in [sandbox] (did you mean "expose_secrets"?)`,
			"the keys allowed there are backend, container_cli, container_image, container_args, container_run_args, expose_secrets, path, read_only, cache_mib, unstaged"}},
		{"no near key", "[limits]\nfoo = 1\n", []string{
			`cfg.toml line 2: unknown key "foo" in [limits]; the keys allowed there are max_calls, wall_minutes, exec_minutes, output_mib`}},
		{"an array of tables", "[[secret]]\nname = \"A\"\nbinary = []\n", []string{
			`cfg.toml line 3: unknown key "binary" in [secret] (did you mean "binaries"?)`, "name, env, file, binaries"}},
		{"an unknown table", "[sandbx]\nbackend = \"bwrap\"\n", []string{
			`cfg.toml line 1: unknown key "sandbx" at the top level (did you mean "sandbox"?)`}},
		{"a key under the wrong table", "[network]\npath = [\"~/bin\"]\n", []string{
			`cfg.toml line 2: unknown key "path" in [network]; the keys allowed there are enabled, test_only_hosts`}},
		{"several", "lisen = 1\nmod = \"auto\"\n", []string{
			`cfg.toml line 1: unknown key "lisen"`, "(and 1 more unknown key after it)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in), "cfg.toml")
			if err == nil {
				t.Fatalf("Parse(%q) accepted an unknown key", tt.in)
			}
			msg := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q\ndoes not say %q", msg, w)
				}
			}
			if strings.Contains(msg, "strict mode") || strings.Contains(msg, "target struct") || strings.Contains(msg, "\n") {
				t.Errorf("error is not one plain sentence: %q", msg)
			}
		})
	}
}
