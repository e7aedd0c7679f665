package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name, user, ws string
		want           []string // substrings of the error
	}{
		{name: "unknown top-level key", user: "colour = \"red\"\n", want: []string{":1:", `unknown key "colour"`}},
		{name: "unknown rule key", user: "[[rule]]\naction = \"allow\"\ntool = \"read_file\"\nbinnary = \"/x\"\n", want: []string{":4:", `"rule.binnary"`, `did you mean "binary"?`, "the keys allowed there are id, "}},
		{name: "syntax error names line", user: "[[rule]]\naction = \"allow\"\ntool = read_file\n", want: []string{":3:"}},
		{name: "missing action", user: "# c\n[[rule]]\nid = \"x\"\ntool = \"read_file\"\n", want: []string{":2:", "no action"}},
		{name: "bad action", user: "[[rule]]\naction = \"maybe\"\ntool = \"read_file\"\n", want: []string{"allow, ask or deny"}},
		{name: "unknown tool", user: "[[rule]]\naction = \"allow\"\ntool = \"rm_rf\"\n", want: []string{`"rm_rf"`}},
		{name: "relative binary", user: "[[rule]]\naction = \"allow\"\nbinary = \"git\"\n", want: []string{"absolute path"}},
		{name: "empty selector", user: "[[rule]]\naction = \"deny\"\n", want: []string{"at least one"}},
		{name: "relative user path", user: "[[rule]]\naction = \"allow\"\npaths = [\"src/*\"]\n", want: []string{"must be absolute"}},
		{name: "bad glob", user: "[[rule]]\naction = \"allow\"\npaths = [\"/a/[\"]\n", want: []string{"malformed"}},
		{name: "bad domain", user: "[[rule]]\naction = \"allow\"\ndomains = [\"https://x.com/\"]\n", want: []string{"host name"}},
		{name: "domains with binary", user: "[[rule]]\naction = \"allow\"\nbinary = \"/bin/x\"\ndomains = [\"x.com\"]\n", want: []string{"domains only"}},
		{name: "relative trusted dir", user: "trusted_bin_dirs = [\"bin\"]\n", want: []string{"absolute"}},
		{name: "workspace cannot trust dirs", ws: "trusted_bin_dirs = [\"/tmp\"]\n", want: []string{`unknown key "trusted_bin_dirs"`, WorkspacePolicyFile}},
		{name: "workspace syntax error", ws: "[[rule]\n", want: []string{WorkspacePolicyFile + ":1:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			uf := filepath.Join(d, "policy.toml")
			write(t, uf, c.user)
			ws := filepath.Join(d, "ws")
			os.MkdirAll(filepath.Join(ws, ".gatehouse"), 0o755)
			if c.ws != "" {
				write(t, filepath.Join(ws, WorkspacePolicyFile), c.ws)
			}
			_, err := Load(uf, []string{ws})
			if err == nil {
				t.Fatal("loaded without error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestLoadMissingFilesIsBuiltin(t *testing.T) {
	d := t.TempDir()
	p, err := Load(filepath.Join(d, "nope.toml"), []string{filepath.Join(d, "ws")})
	if err != nil {
		t.Fatal(err)
	}
	s := Session{Mode: ModeAsk, Workspaces: []string{"/w"}, Home: "/h"}
	if v := p.Decide(s, Action{Tool: ToolRunCommand, Binary: "/usr/bin/ls", Argv: []string{"ls"}, Cwd: "/w"}).Verdict; v != Allow {
		t.Fatalf("ls: %s", v)
	}
}

func TestTrustedBinDirsReplacesDefaults(t *testing.T) {
	d := t.TempDir()
	uf := filepath.Join(d, "policy.toml")
	write(t, uf, "trusted_bin_dirs = [\"/home/u/sdk/go/bin\"]\n")
	p, err := Load(uf, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := Session{Mode: ModeAsk, Workspaces: []string{"/w"}, Home: "/home/u"}
	goTest := Action{Tool: ToolRunCommand, Binary: "/home/u/sdk/go/bin/go", Argv: []string{"go", "test"}, Cwd: "/w"}
	if v := p.Decide(s, goTest).Verdict; v != Allow {
		t.Errorf("go from trusted sdk dir: %s", v)
	}
	if v := p.Decide(s, Action{Tool: ToolRunCommand, Binary: "/usr/bin/ls", Argv: []string{"ls"}, Cwd: "/w"}).Verdict; v != Ask {
		t.Errorf("ls from an untrusted dir: %s", v)
	}
}

func TestResolveBinary(t *testing.T) {
	d := t.TempDir()
	bin := filepath.Join(d, "bin")
	ws := filepath.Join(d, "ws")
	for _, p := range []string{bin, ws + "/tools"} {
		os.MkdirAll(p, 0o755)
	}
	exe := func(p string) { write(t, p, "#!/bin/sh\n"); os.Chmod(p, 0o755) }
	exe(filepath.Join(bin, "git"))
	exe(filepath.Join(ws, "git"))
	exe(filepath.Join(ws, "tools/fmt"))
	write(t, filepath.Join(bin, "notexec"), "x")
	pathEnv := strings.Join([]string{"", ".", "relative/bin", bin}, string(os.PathListSeparator))

	cases := []struct {
		argv0, cwd, want string
		wantErr          bool
	}{
		{argv0: "git", cwd: ws, want: filepath.Join(bin, "git")},
		{argv0: "./git", cwd: ws, want: filepath.Join(ws, "git")},
		{argv0: "tools/fmt", cwd: ws, want: filepath.Join(ws, "tools/fmt")},
		{argv0: "../git", cwd: filepath.Join(ws, "tools"), want: filepath.Join(ws, "git")},
		{argv0: filepath.Join(bin, "git"), cwd: "", want: filepath.Join(bin, "git")},
		{argv0: "fmt", cwd: filepath.Join(ws, "tools"), wantErr: true}, // "." on PATH is skipped
		{argv0: "notexec", cwd: ws, wantErr: true},
		{argv0: "./git", cwd: "relative", wantErr: true},
		{argv0: "", cwd: ws, wantErr: true},
		{argv0: "nosuch", cwd: ws, wantErr: true},
	}
	for _, c := range cases {
		got, err := ResolveBinary(c.argv0, pathEnv, c.cwd)
		if c.wantErr {
			if err == nil {
				t.Errorf("ResolveBinary(%q) = %q, want error", c.argv0, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ResolveBinary(%q, cwd %q) = %q, %v; want %q", c.argv0, c.cwd, got, err, c.want)
		}
	}

	// The resolved paths decide differently: ./git is not the trusted git.
	p := &Policy{trustedDirs: set(bin)}
	s := Session{Mode: ModeAsk, Workspaces: []string{ws}, Home: d}
	for argv0, want := range map[string]Verdict{"git": Allow, "./git": Ask} {
		b, err := ResolveBinary(argv0, pathEnv, ws)
		if err != nil {
			t.Fatal(err)
		}
		if v := p.Decide(s, Action{Tool: ToolRunCommand, Binary: b, Argv: []string{argv0, "status"}, Cwd: ws}).Verdict; v != want {
			t.Errorf("%s status: %s, want %s", argv0, v, want)
		}
	}
}

func TestGlob(t *testing.T) {
	cases := []struct {
		pat, path string
		want      bool
	}{
		{"/a/**", "/a", true},
		{"/a/**", "/a/b/c", true},
		{"/a/**/x.go", "/a/x.go", true},
		{"/a/**/x.go", "/a/b/c/x.go", true},
		{"/a/**/x.go", "/a/b/c/y.go", false},
		{"/a/*", "/a/b", true},
		{"/a/*", "/a/b/c", false},
		{"/a/*.go", "/a/main.go", true},
		{"**/.env", "/x/y/.env", true},
		{"**/.env", "/.env", true},
		{"/a/b", "/a/bc", false},
		{"/a/b\\*", "/a/b*", true},
		{"/a/b\\*", "/a/bc", false},
		{"~/notes/**", "/home/u/notes/a", true},
		{"~/notes/**", "/home/unotes/a", false},
		{"~", "/home/u", true},
	}
	for _, c := range cases {
		g, err := compileGlob(c.pat, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := g.match(c.path, "/home/u"); got != c.want {
			t.Errorf("%q matches %q = %v, want %v", c.pat, c.path, got, c.want)
		}
	}
}
