package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestPrepareRejectsBadInput(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{ws, outside, filepath.Join(ws, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	ss, err := PrepareSession(SessionSpec{Workspaces: []string{ws}}, PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ok := []string{"sh", "-c", "true"}
	tests := []struct {
		name string
		spec Spec
		want error
	}{
		{"empty argv", Spec{}, ErrEmptyArgv},
		{"empty argv0", Spec{Argv: []string{""}}, ErrEmptyArgv},
		{"not on PATH", Spec{Argv: []string{"gatehouse-no-such-program"}}, ErrNotFound},
		{"relative program missing", Spec{Argv: []string{"./nope"}}, ErrNotFound},
		{"NUL in arg", Spec{Argv: []string{"echo", "a\x00b"}}, ErrNUL},
		{"NUL in env", Spec{Argv: ok, Env: []string{"A=b\x00c"}}, ErrNUL},
		{"env without =", Spec{Argv: ok, Env: []string{"JUSTKEY"}}, ErrBadSpec},
		{"cwd outside", Spec{Argv: ok, Dir: outside}, ErrOutsideWorkspace},
		{"cwd dotdot", Spec{Argv: ok, Dir: "../outside"}, ErrPathEscape},
		{"cwd symlink escape", Spec{Argv: ok, Dir: "escape"}, ErrPathEscape},
		{"rw dotdot", Spec{Argv: ok, ReadWrite: []string{"sub/../../outside"}}, ErrPathEscape},
		{"rw symlink escape", Spec{Argv: ok, ReadWrite: []string{"escape"}}, ErrPathEscape},
		{"rw system dir", Spec{Argv: ok, ReadWrite: []string{"/etc"}}, ErrUnsafeWorkspace},
		{"bad network", Spec{Argv: ok, Network: Network{Mode: "wifi"}}, ErrBadSpec},
		{"proxy without a proxy", Spec{Argv: ok, Network: Network{Mode: NetProxy}}, ErrBadSpec},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Prepare(ss, tc.spec, PrepareOptions{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *SpecError", err)
			}
		})
	}

	p, err := Prepare(ss, Spec{Argv: ok, Dir: "sub"}, PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Dir != filepath.Join(ss.Workspaces[0], "sub") || !filepath.IsAbs(p.Path) {
		t.Errorf("prepared = %+v", p)
	}
}

func TestPrepareSessionRejectsUnsafeWorkspaces(t *testing.T) {
	root := t.TempDir()
	toRoot := filepath.Join(root, "to-root")
	toEtc := filepath.Join(root, "to-etc")
	home := filepath.Join(root, "home")
	for _, err := range []error{os.Symlink("/", toRoot), os.Symlink("/etc", toEtc), os.Mkdir(home, 0o755)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		ws   string
		want error
	}{
		{"symlink to /", toRoot, ErrUnsafeWorkspace},
		{"symlink to /etc", toEtc, ErrUnsafeWorkspace},
		{"slash", "/", ErrUnsafeWorkspace},
		{"usr subdir", "/usr/share", ErrUnsafeWorkspace},
		{"home itself", home, ErrUnsafeWorkspace},
		{"parent of home", root, ErrUnsafeWorkspace},
		{"relative", "ws", ErrBadSpec},
		{"missing", filepath.Join(root, "nope"), ErrBadSpec},
		{"NUL", "/tmp/a\x00b", ErrNUL},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := PrepareSession(SessionSpec{Workspaces: []string{tc.ws}}, PrepareOptions{Home: home})
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}
