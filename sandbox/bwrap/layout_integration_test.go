//go:build integration

package bwrap

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch/launchtest"
)

// The helper clones the layout from the host's root, which bwrap binds
// for it; the command must find none of the host's root, under either
// helper, while what the layout binds works as bwrap's own binds did.
func TestLayoutFromTheHostsRoot(t *testing.T) {
	for _, tc := range []struct {
		name, helper string
		dynamic      bool
	}{
		{"static helper", launchtest.StaticHelper(t), false},
		{"dynamic helper", "", true}, // the test binary
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := New(context.Background(), Options{Helper: tc.helper})
			if err != nil {
				t.Fatalf("bwrap backend unavailable: %v", err)
			}
			if b.dynamicHelper != tc.dynamic {
				t.Fatalf("helper %s taken for dynamic=%v", b.opts.Helper, b.dynamicHelper)
			}
			// A file outside everything the sandbox binds: through the
			// host's root it would be readable.
			outside := filepath.Join(t.TempDir(), "outside-canary")
			must(t, os.WriteFile(outside, []byte("host root in sight"), 0o644))
			ro := t.TempDir()
			must(t, os.WriteFile(filepath.Join(ro, "tool"), []byte("tool"), 0o644))
			hidden := t.TempDir()
			must(t, os.WriteFile(filepath.Join(hidden, "secret"), []byte("hidden dir in sight"), 0o644))
			ws := t.TempDir()
			s, err := b.Open(context.Background(), sandbox.SessionSpec{ID: "layout", Workspaces: []string{ws}, ReadOnly: []string{ro}, Hidden: []string{hidden}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(context.Background())
			script := strings.Join([]string{
				"ls -a / | grep -c gatehouse-host",
				"grep -c gatehouse-host /proc/self/mountinfo",
				"cat " + initproc.HostRoot + outside,
				"cat " + outside,
				"cat " + filepath.Join(hidden, "secret"),
				"echo dev > /dev/null && head -c 4 /dev/zero | wc -c",
				"cat " + filepath.Join(ro, "tool"),
				"touch " + filepath.Join(ro, "new") + " || echo ro refused",
				"touch /usr/gatehouse-layout || echo usr refused",
				"echo written > " + filepath.Join(ws, "out"),
				"grep ' /usr ' /proc/self/mountinfo",
				"wc -c < /etc/shadow",
				"true",
			}, "; ")
			r, err := s.Run(context.Background(), sandbox.Spec{Argv: []string{"/bin/sh", "-c", script}, Env: []string{"PATH=/usr/bin:/bin"}, Limits: sandbox.DefaultLimits()})
			out := string(r.Stdout) + string(r.Stderr)
			if err != nil || r.ExitCode != 0 {
				t.Fatalf("run: exit %d err %v\n%s", r.ExitCode, err, out)
			}
			for _, bad := range []string{"host root in sight", "hidden dir in sight"} {
				if strings.Contains(out, bad) {
					t.Errorf("%s:\n%s", bad, out)
				}
			}
			lines := strings.Split(string(r.Stdout), "\n")
			if len(lines) < 2 || lines[0] != "0" || lines[1] != "0" {
				t.Errorf("the host's root is in the listing or the mount table:\n%s", out)
			}
			for _, want := range []string{"4\n", "tool", "ro refused", "usr refused", "nosuid", "nodev"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if _, err := os.Stat("/etc/shadow"); err == nil && !strings.HasSuffix(strings.TrimSpace(string(r.Stdout)), "\n0") {
				t.Errorf("/etc/shadow not covered with an empty file:\n%s", out)
			}
			if b, err := os.ReadFile(filepath.Join(ws, "out")); err != nil || string(b) != "written\n" {
				t.Errorf("workspace write did not land: %q %v", b, err)
			}
		})
	}
}

// A layout step that fails stops the sandbox before the command runs:
// a read-only bind that is not tried must fail, not be skipped.
func TestLayoutFailureRunsNothing(t *testing.T) {
	b, err := New(context.Background(), Options{Helper: launchtest.StaticHelper(t)})
	if err != nil {
		t.Fatalf("bwrap backend unavailable: %v", err)
	}
	ws := t.TempDir()
	marker := filepath.Join(ws, "ran")
	p := &sandbox.Prepared{Workspaces: []string{ws}}
	l := Layout{Home: t.TempDir()}
	layout := append(Mounts(p, l), initproc.LayoutMount{Kind: initproc.MountROBind, Src: filepath.Join(ws, "no-such-toolchain"), Dst: "/opt/tool"})
	cfg, err := initproc.Config{Layout: layout, DropCaps: true, Path: "/bin/sh", Argv: []string{"sh", "-c", "echo ran > " + marker}}.Encode()
	must(t, err)
	argv := append(Args(p, l), "--", helperPath(b.opts.Helper), initproc.Entry, cfg)
	out, err := exec.Command(b.opts.Bwrap, argv...).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != initproc.ExitSetupFailed {
		t.Fatalf("bwrap = %v, want exit %d (setup failed):\n%s", err, initproc.ExitSetupFailed, out)
	}
	if !strings.Contains(string(out), "no-such-toolchain") {
		t.Errorf("the error does not name the missing path:\n%s", out)
	}
	if _, serr := os.Stat(marker); serr == nil {
		t.Fatal("the command ran although its layout failed")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
