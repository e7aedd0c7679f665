package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

func TestOpenAndEnvFor(t *testing.T) {
	d := t.TempDir()
	keyFile := filepath.Join(d, "npm-token")
	if err := os.WriteFile(keyFile, []byte("npm-file-secret-value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const conf = `
[[secret]]
name = "GH_TOKEN"
binaries = ["/usr/bin/gh", "/usr/bin/git"]

[[secret]]
name = "NPM_TOKEN"
file = "~/npm-token"
binaries = ["/usr/bin/npm"]

[[secret]]
name = "OTHER"
env = "OTHER_SOURCE"
binaries = ["/usr/bin/gh"]
`
	var cfg Config
	if err := toml.NewDecoder(strings.NewReader(conf)).DisallowUnknownFields().Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GH_TOKEN": "gh-env-secret-value", "HOME": d, "OTHER_SOURCE": "other-secret-value"}
	s, err := Open(cfg, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		bin  string
		want map[string]string
	}{
		{"/usr/bin/gh", map[string]string{"GH_TOKEN": "gh-env-secret-value", "OTHER": "other-secret-value"}},
		{"/usr/bin/git", map[string]string{"GH_TOKEN": "gh-env-secret-value"}},
		{"/usr/bin/npm", map[string]string{"NPM_TOKEN": "npm-file-secret-value"}},
		{"/usr/bin/../bin/npm", map[string]string{"NPM_TOKEN": "npm-file-secret-value"}},
		{"/home/u/proj/gh", map[string]string{}}, // ./gh is not gh
		{"/usr/bin/curl", map[string]string{}},
	}
	for _, c := range cases {
		got := s.EnvFor(c.bin)
		if len(got) != len(c.want) {
			t.Errorf("EnvFor(%s) has %d entries, want %d", c.bin, len(got), len(c.want))
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("EnvFor(%s)[%s] wrong", c.bin, k)
			}
		}
	}
	r := NewRedactor(s.Values())
	if got := r.String("a npm-file-secret-value b gh-env-secret-value"); got != "a [REDACTED:NPM_TOKEN] b [REDACTED:GH_TOKEN]" {
		t.Errorf("redactor from store: %q", got)
	}
	if strings.Contains(s.String(), "secret-value") {
		t.Error("Store.String shows a value")
	}
}

func TestOpenErrorsNameTheProblemNotTheValue(t *testing.T) {
	env := map[string]string{"SET": "set-secret-value-xyz"}
	look := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cases := []struct {
		sec  Secret
		want string
	}{
		{Secret{Name: "MISSING", Binaries: []string{"/bin/x"}}, "MISSING is not set"},
		{Secret{Name: "bad name", Binaries: []string{"/bin/x"}}, "environment variable name"},
		{Secret{Name: "SET"}, "lists no binaries"},
		{Secret{Name: "SET", Binaries: []string{"gh"}}, "absolute path"},
		{Secret{Name: "SET", Env: "SET", File: "/x", Binaries: []string{"/bin/x"}}, "both env and file"},
		{Secret{Name: "F", File: "/nonexistent/secret", Binaries: []string{"/bin/x"}}, "cannot read its file"},
		{Secret{Name: "F", File: "relative", Binaries: []string{"/bin/x"}}, "absolute path"},
	}
	for _, c := range cases {
		s, err := Open(Config{Secrets: []Secret{c.sec, {Name: "SET", Binaries: []string{"/bin/ok"}}}}, look)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.sec, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "set-secret-value-xyz") {
			t.Errorf("error shows a secret value: %v", err)
		}
		if c.sec.Name != "SET" && s.EnvFor("/bin/ok")["SET"] != "set-secret-value-xyz" {
			t.Errorf("%+v: the good secret was dropped too", c.sec)
		}
	}
}

func TestHostSecrets(t *testing.T) {
	cases := []struct {
		name, value string
		want        bool
	}{
		{"GITHUB_TOKEN", "ghp_something_long", true},
		{"NPM_TOKEN", "0123456789", true},
		{"CLIENT_SECRET", "abcdefgh", true},
		{"DB_PASSWORD", "hunter2hunter2", true},
		{"MYSQL_PWD_PASSWD", "abcdefghij", true},
		{"OPENAI_API_KEY", "sk-whatever-123", true},
		{"STRIPE_KEY", "rk_live_12345678", true},
		{"ANTHROPIC_APIKEY", "x-12345678", true},
		{"AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", true},
		{"AWS_SESSION_VALUE", "FwoGZXIvYXdzEJr", true},
		{"SENTRY_DSN", "https://abc@o1.ingest.sentry.io/1", true},
		{"NPM_AUTH", "abcdefghijk", true},
		{"GITHUB_TOKEN", "short", false},
		{"AWS_REGION", "us-east-1", false},
		{"AWS_PROFILE", "production", false},
		{"SSH_AUTH_SOCK", "/tmp/ssh-XXXX/agent.1", false},
		{"GPG_KEY_FILE", "/home/u/key.asc", false},
		{"SECRET_PATH", "/run/secrets/x", false},
		{"GIT_AUTHOR_NAME", "Alice Example", false},
		{"KEYBOARD_LAYOUT", "us-international", false},
		{"PATH", "/usr/bin:/bin", false},
		{"HOME", "/home/someone", false},
		{"EDITOR", "vim-with-long-name", false},
		{"PWD", "/home/u/proj", false},
	}
	for _, c := range cases {
		got := HostSecrets([]string{c.name + "=" + c.value})
		if (len(got) == 1) != c.want {
			t.Errorf("%s=%s: secret %v, want %v", c.name, c.value, len(got) == 1, c.want)
		}
	}
	r := NewRedactor(HostSecrets([]string{"DB_PASSWORD=hunter2hunter2", "AWS_REGION=us-east-1"}))
	if got := r.String("connect us-east-1 with hunter2hunter2"); got != "connect us-east-1 with [REDACTED:DB_PASSWORD]" {
		t.Errorf("got %q", got)
	}
}
