package notify

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// The creation guard's program, for every architecture with a table:
// creating calls go to the guard, opens only with O_CREAT, openat2 says
// it does not exist, io_uring and x32 are refused, other
// architectures' calls kill.
func TestGuardFilter(t *testing.T) {
	notify, allow, deny, kill := uint32(unix.SECCOMP_RET_USER_NOTIF), uint32(unix.SECCOMP_RET_ALLOW), errno(unix.EPERM), uint32(unix.SECCOMP_RET_KILL_PROCESS)
	for name, calls := range guardCalls {
		a := seccompArches[name]
		prog := mustAssemble(guardFilter(&a, calls))
		for nr, c := range calls {
			switch c {
			case gcOpen:
				if got := run(t, prog, a.audit, nr, 0, unix.O_WRONLY); got != allow {
					t.Errorf("%s: open without O_CREAT: %#x", name, got)
				}
				if got := run(t, prog, a.audit, nr, 0, unix.O_WRONLY|unix.O_CREAT); got != notify {
					t.Errorf("%s: open with O_CREAT: %#x", name, got)
				}
			case gcOpenat:
				if got := run(t, prog, a.audit, nr, 0, 0, unix.O_TMPFILE|unix.O_WRONLY); got != allow {
					t.Errorf("%s: openat O_TMPFILE: %#x", name, got)
				}
				if got := run(t, prog, a.audit, nr, 0, 0, unix.O_CREAT|unix.O_EXCL); got != notify {
					t.Errorf("%s: openat with O_CREAT: %#x", name, got)
				}
			default:
				if got := run(t, prog, a.audit, nr); got != notify {
					t.Errorf("%s: call %d (%d): %#x, want the guard", name, nr, c, got)
				}
			}
		}
		for nr, want := range map[uint32]uint32{
			sysOpenat2: errno(unix.ENOSYS), sysIOUringSetup: deny, sysIOUringEnter: deny, sysIOUringRegister: deny,
			a.socket: allow, 63: allow,
		} {
			if _, ours := calls[nr]; ours {
				continue
			}
			if got := run(t, prog, a.audit, nr); got != want {
				t.Errorf("%s: call %d: %#x, want %#x", name, nr, got, want)
			}
		}
		if got := run(t, prog, 0x40000003, 5); got != kill {
			t.Errorf("%s: i386 call: %#x, want kill", name, got)
		}
		if a.x32 {
			if got := run(t, prog, a.audit, x32Bit|2, 0, unix.O_CREAT); got != deny {
				t.Errorf("%s: x32 open: %#x, want EPERM", name, got)
			}
		}
	}
}

func TestSplitPath(t *testing.T) {
	for _, c := range []struct {
		path string
		walk []string
		last string
	}{
		{"a", nil, "a"},
		{"/", nil, "."},
		{"///", nil, "."},
		{"a/b/c", []string{"a", "b"}, "c"},
		{"/a//b/", []string{"a"}, "b/"},
		{"../.envrc", []string{".."}, ".envrc"},
		{"a/..", []string{"a"}, ".."},
	} {
		walk, last := splitPath(c.path)
		if !slices.Equal(walk, c.walk) || last != c.last {
			t.Errorf("splitPath(%q) = %q, %q; want %q, %q", c.path, walk, last, c.walk, c.last)
		}
	}
}

// The guard knows a directory by its inode: another path to it (a link)
// names the same refused entry, a trailing slash too, and a parent that
// is gone leaves its entry out.
func TestCreateGuardRefuses(t *testing.T) {
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "l")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	g, err := newCreateGuard([]string{filepath.Join(ws, ".envrc"), filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, "gone", "x")})
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	root, err := unix.Open(link, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(root)
	for name, want := range map[string]bool{".envrc": true, ".envrc/": true, "envrc": false, ".git": false, "hooks": false} {
		if got, err := g.refuses(root, name); err != nil || got != want {
			t.Errorf("refuses(root, %q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := newCreateGuard([]string{"relative/.envrc"}); err == nil {
		t.Error("a relative path was taken")
	}
}
