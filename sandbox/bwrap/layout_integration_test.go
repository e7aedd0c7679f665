//go:build integration

package bwrap

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
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
			b, err := New(t.Context(), Options{Helper: tc.helper})
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
			s, err := b.Open(t.Context(), sandbox.SessionSpec{ID: "layout", Workspaces: []string{ws}, ReadOnly: []string{ro}, Hidden: []string{hidden}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(t.Context())
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
			r, err := s.Run(t.Context(), sandbox.Spec{Argv: []string{"/bin/sh", "-c", script}, Env: []string{"PATH=/usr/bin:/bin"}, Limits: sandbox.DefaultLimits()})
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

// A layout step that fails stops the zygote before it starts any
// sandbox: a read-only bind that is not tried must fail, not be skipped.
func TestLayoutFailureRunsNothing(t *testing.T) {
	b, err := New(t.Context(), Options{Helper: launchtest.StaticHelper(t)})
	if err != nil {
		t.Fatalf("bwrap backend unavailable: %v", err)
	}
	ws := t.TempDir()
	p := &sandbox.Prepared{Workspaces: []string{ws}, Limits: sandbox.DefaultLimits()}
	l := Layout{Home: t.TempDir()}
	layout := append(Mounts(p, l), initproc.LayoutMount{Kind: initproc.MountROBind, Src: filepath.Join(ws, "no-such-toolchain"), Dst: "/opt/tool"})
	cfg := initproc.Config{Zygote: &initproc.ZygoteConfig{Fresh: []string{"/tmp"}}, Layout: layout}
	z, err := startZygote(b.opts.Bwrap, Args(p, l), b.opts.Helper, cfg, "bad layout", slog.New(slog.DiscardHandler))
	must(t, err)
	defer z.Close()
	pend, err := launch.StartSpawned(launch.Command{Backend: Name, Config: initproc.Config{Supervise: true}, Limits: p.Limits, Deferred: true},
		spawner{z, initproc.SpawnRequest{OwnNet: true}})
	if err == nil {
		pend.Discard()
		t.Fatal("a zygote whose layout failed started a sandbox")
	}
	if !errors.Is(err, errZygoteGone) || !strings.Contains(err.Error(), "no-such-toolchain") {
		t.Errorf("spawn error = %v, want the zygote gone, naming the missing path", err)
	}
	<-z.Exited()
	if code := z.ExitCode(); code != initproc.ExitSetupFailed {
		t.Errorf("zygote exit %d, want %d (setup failed)", code, initproc.ExitSetupFailed)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
