//go:build integration

package bwrap

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// guardSession opens an unstaged session on a workspace with a git dir
// (config and HEAD, no hooks) and returns a shell runner.
func guardSession(t *testing.T) (ws string, sh func(script string) string) {
	t.Helper()
	ctx := t.Context()
	b, err := New(ctx, Options{})
	if err != nil {
		t.Fatalf("bwrap backend unavailable: %v", err)
	}
	ws = t.TempDir()
	must(t, os.Mkdir(filepath.Join(ws, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "guard", Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	// Closed after t.Context is done.
	t.Cleanup(func() { s.Close(context.Background()) })
	return ws, func(script string) string {
		t.Helper()
		r, err := s.Run(ctx, sandbox.Spec{Argv: []string{"bash", "-c", script}, Dir: ws,
			Env: []string{"PATH=/usr/bin:/bin", "WS=" + ws, "LC_ALL=C"}, Limits: sandbox.DefaultLimits()})
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		return string(r.Stdout) + string(r.Stderr)
	}
}

// A run that writes the workspace itself sees it as it is, with no
// placeholder for a protected name that does not exist, and creating
// that name fails the ways only bwrap's runs have tools for, and the
// ways a shell cannot try (the test binary's own system calls): each
// attempt ran, and the name is still absent on the host after it.
func TestCreationGuardRefuses(t *testing.T) {
	ws, sh := guardSession(t)
	if out := sh(`ls -A`); strings.Fields(out) == nil || slices.Contains(strings.Fields(out), ".envrc") || strings.Contains(out, ".mcp.json") {
		t.Errorf("the listing shows protected names that do not exist:\n%s", out)
	}
	// The shell's ways are tried on every backend (proof's
	// TestCreationRefusedEveryWay); these need bash, python or util-linux.
	attempts := []struct{ name, script string }{
		// Refused before the guard is asked, today: a run cannot map its
		// ids into a user namespace of its own.
		{"nested namespace bind", `unshare -rm sh -c 'mkdir -p /tmp/x && mount --bind "$WS" /tmp/x && echo evil > /tmp/x/.envrc'`},
		{"python unix socket", `python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(".envrc")'`},
		{"bash /proc/self/cwd", `echo evil > /proc/self/cwd/.envrc`},
	}
	// The guard makes entries with the caller's rights, not those of the
	// process it lives in: a directory the target may not write stays
	// closed to it (as root too, since the target holds no capability).
	if out := sh(`mkdir -p ro && chmod 500 ro; (echo x > ro/f) 2>/dev/null && echo WROTE; mkdir ro/d 2>/dev/null && echo MADE; true`); strings.Contains(out, "WROTE") || strings.Contains(out, "MADE") {
		t.Errorf("the guard made an entry the target may not: %s", out)
	}
	// The guard lives in the run's first process, which the kernel keeps
	// the target out of; the guard must not open a way in. Each of these
	// opens with O_CREAT, so the guard makes it.
	for _, probe := range []string{
		`exec 3<>/proc/1/mem && echo OPENED-mem`,
		`exec 3<>/proc/1/environ && echo OPENED-environ`,
		`for n in $(seq 0 20); do (exec 3>>/proc/1/fd/$n) 2>/dev/null && echo OPENED-fd-$n; done; true`,
		`echo x > /proc/1/cwd/.envrc-via-init && echo OPENED-cwd`,
		`ls /proc/1/task | while read t; do (exec 3<>/proc/1/task/$t/mem) 2>/dev/null && echo OPENED-task-$t; done; true`,
	} {
		if out := sh(probe); strings.Contains(out, "OPENED") {
			t.Errorf("the run reached its first process through the guard: %s: %s", probe, out)
		}
	}
	for _, a := range attempts {
		out := sh(a.script + `; echo "exit $?"`)
		for _, p := range []string{".envrc", ".git/hooks"} {
			if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
				t.Errorf("%s: %s was created: %s", a.name, p, out)
				os.RemoveAll(filepath.Join(ws, p))
			}
		}
		if strings.Contains(out, "exit 0") || !strings.Contains(out, "denied") && !strings.Contains(out, "uid_map") {
			t.Errorf("%s: no refusal was said: %s", a.name, out)
		}
	}

	// What a shell cannot try: the test binary itself, in the run.
	probe := filepath.Join(ws, "probe")
	copyFile(t, os.Args[0], probe)
	out := sh(guardProbeEnv + `=.envrc ./probe`)
	for _, want := range []string{"tmpfile-link: EACCES", "openat-dirfd: EACCES", "bind: EACCES", "mknod: EACCES",
		"rename-noreplace: EACCES", "openat2: ENOSYS", "io_uring: EPERM", "x32-open: EPERM"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("probe: want %q in\n%s", want, out)
		}
	}
	if _, err := os.Lstat(filepath.Join(ws, ".envrc")); err == nil {
		t.Errorf("the probe created .envrc:\n%s", out)
	}
}

// The same run does what honest work does: files, directories, links,
// renames, FIFOs (twenty writers waiting for their readers at once),
// sockets, temporary files linked in, /dev/stdout,
// O_EXCL, umask, a program written and run at once (a hundred times),
// and git with its lock files.
func TestCreationGuardLetsWorkThrough(t *testing.T) {
	ws, sh := guardSession(t)
	script := `set -e
umask 027; echo a > f; stat -c %a f
mkdir -p d/e/f; ln -s f l; ln f h; mv f g; cat g; cat l 2>/dev/null || echo dangling
mkfifo p; (echo through > p &) ; cat p
for i in $(seq 20); do mkfifo q$i; (echo q$i > q$i &); done; cat q* | wc -l
echo to-stdout > /dev/stdout
exec 3>/proc/self/fd/1; echo via-fd >&3
set -C; (echo again > g) 2>/dev/null || echo noclobber; set +C
echo x > "$HOME/h"; echo y > /tmp/t; cat "$HOME/h" /tmp/t
cd d/e && echo rel > ../../rel && cd "$WS" && cat rel
python3 -c 'import socket,os; s=socket.socket(socket.AF_UNIX); s.bind("sock"); print(os.path.exists("sock"))'
n=0; for i in $(seq 100); do cp "$(command -v sleep)" t$i; ./t$i 0 2>/dev/null && n=$((n+1)); done; echo "ran $n"
git init -q -b main repo && cd repo && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m one && git log --format=%s`
	out := sh(script)
	want := "640\na\ndangling\nthrough\n20\nto-stdout\nvia-fd\nnoclobber\nx\ny\nrel\nTrue\nran 100\none\n"
	if out != want {
		t.Errorf("honest work in a guarded run:\n%s\nwant:\n%s", out, want)
	}
	// A FIFO opened again through a magic link waits for its reader
	// without holding up the run's other creations.
	magic := `python3 -c '
import os, signal, threading, time
os.mkfifo("pm")
pfd = os.open("pm", os.O_PATH)
seen = []
def writer():
    fd = os.open("/proc/self/fd/%d" % pfd, os.O_WRONLY | os.O_CREAT)
    seen.append("writer-open")
    os.write(fd, b"via-magic"); os.close(fd)
t = threading.Thread(target=writer); t.start()
time.sleep(0.2)
signal.alarm(5)
open("made-meanwhile", "w").close()
seen.append("made")
r = os.open("pm", os.O_RDONLY)
data = os.read(r, 100)
t.join()
print(",".join(seen), data.decode())'`
	if out := sh(magic); out != "made,writer-open via-magic\n" {
		t.Errorf("a FIFO reopened through /proc/self/fd: %q", out)
	}
	copyFile(t, os.Args[0], filepath.Join(ws, "probe"))
	out = sh(guardProbeEnv + `=okname ./probe`)
	for _, want := range []string{"tmpfile-link: ok", "openat-dirfd: ok", "bind: ok", "mknod: ok", "rename-noreplace: ok", "concurrent-excl: ok"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("probe: want %q in\n%s", want, out)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	must(t, err)
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	must(t, err)
	_, err = io.Copy(out, in)
	must(t, err)
	must(t, out.Close())
}
