package bwrap

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

// render writes bwrap's arguments, then each step of the helper's
// layout after a "|": "ro-bind? /usr /usr" for a bind tried.
func render(p *sandbox.Prepared, l Layout) string {
	var b strings.Builder
	b.WriteString(strings.Join(Args(p, l), " "))
	for _, m := range Mounts(p, l) {
		b.WriteString(" | " + string(m.Kind))
		if m.Try {
			b.WriteString("?")
		}
		for _, f := range []string{m.Src, m.Dst} {
			if f != "" {
				b.WriteString(" " + f)
			}
		}
	}
	return b.String()
}

func TestArgs(t *testing.T) {
	base := sandbox.Prepared{
		Path: "/usr/bin/git", Argv: []string{"git", "status"},
		Dir: "/w/repo", Workspaces: []string{"/w"},
	}
	l := Layout{Home: "/home/ann", Hidden: []string{"/nonexistent-hidden"}}
	tests := []struct {
		name    string
		net     sandbox.NetworkMode
		want    []string // ordered subsequence of bwrap's arguments, then the helper's layout
		notWant []string
	}{
		// The zygote keeps the host's network: each run gets a network
		// namespace of its own from it (initproc.SpawnRequest.OwnNet).
		{"none", sandbox.NetNone,
			[]string{"--unshare-all", "--share-net", "--die-with-parent", "--new-session", "--dev-bind / " + initproc.HostRoot, "--tmpfs /dev",
				"| dev-bind? /dev/null /dev/null", "tmpfs /tmp", "tmpfs /home/ann", "bind /w /w"},
			// No --dev: it would nest a second user namespace, where the
			// helper could not mount the protected paths.
			[]string{"/nonexistent-hidden", "--dev ", "/usr/bin/git", "/run/systemd/resolve", sandbox.LowerMountPoint}},
		{"host", sandbox.NetHost, []string{"--unshare-all", "--share-net", "| ro-bind? /run/systemd/resolve"}, nil},
		// Staging: the stage root, and each workspace again, read-only and
		// with nothing mounted below, for the overlays' lower layers.
		{"staging", sandbox.NetNone, []string{"bind /w /w", "| bind /stage " + sandbox.StageMountPoint, "| ro-bind /w " + sandbox.LowerOf(0)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := base
			p.Network.Mode = tc.net
			if tc.name == "staging" {
				p.StageRoot = "/stage"
			}
			got := render(&p, l)
			pos := 0
			for _, w := range tc.want {
				i := strings.Index(got[pos:], w)
				if i < 0 {
					t.Fatalf("args lack %q after position %d:\n%s", w, pos, got)
				}
				pos += i + len(w)
			}
			for _, nw := range tc.notWant {
				if strings.Contains(got, nw) {
					t.Errorf("args contain %q", nw)
				}
			}
			if slices.Contains(Args(&p, l), "--cap-drop") {
				t.Error("bwrap drops the capabilities the helper needs to protect paths")
			}
		})
	}
}

// The cache lives in the hidden data dir: its bind must come after the
// dir's tmpfs (or the tmpfs would cover it) and before that tmpfs turns
// read-only (or its mount point could not be made); toolchains and a
// linked worktree's git dir are bound at their own paths.
func TestArgsCacheAndToolchains(t *testing.T) {
	data := t.TempDir()
	cache := data + "/cache/abc"
	p := sandbox.Prepared{
		Path: "/usr/bin/go", Argv: []string{"go"}, Dir: "/w", Workspaces: []string{"/w"},
		ReadOnly: []string{"/home/ann/.cargo/bin"}, ReadWrite: []string{"/src/repo/.git"}, Cache: cache,
	}
	got := render(&p, Layout{Home: "/home/ann", Hidden: []string{data}})
	want := []string{"tmpfs /home/ann", "ro-bind /home/ann/.cargo/bin /home/ann/.cargo/bin", "bind /w /w",
		"bind /src/repo/.git /src/repo/.git", "tmpfs " + data, "bind " + cache + " " + cache, "remount-ro " + data}
	pos := 0
	for _, w := range want {
		i := strings.Index(got[pos:], w)
		if i < 0 {
			t.Fatalf("args lack %q in order:\n%s", w, got)
		}
		pos += i + len(w)
	}
	// Outside every hidden dir the cache is bound once, at the end.
	p.Cache = "/var/cache/x"
	got = render(&p, Layout{Home: "/home/ann", Hidden: []string{data}})
	if strings.Count(got, "bind /var/cache/x /var/cache/x") != 1 || !strings.HasSuffix(got, "| bind /var/cache/x /var/cache/x") {
		t.Errorf("cache outside the hidden dirs:\n%s", got)
	}
}

// The helper covers an entry itself, so a hidden path that is a link
// (a host key under /etc/ssh may be) is covered at its target.
func TestMountsHideALinksTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "key")
	link := filepath.Join(dir, "key-link")
	if err := os.WriteFile(target, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	got := render(&sandbox.Prepared{Workspaces: []string{"/w"}}, Layout{Hidden: []string{link}})
	if !strings.Contains(got, "| hide-file "+target) || strings.Contains(got, "hide-file "+link) {
		t.Errorf("the link, not its target, is covered:\n%s", got)
	}
}
