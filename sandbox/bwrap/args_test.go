package bwrap

import (
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

func TestArgs(t *testing.T) {
	base := sandbox.Prepared{
		Path: "/usr/bin/git", Argv: []string{"git", "status"},
		Dir: "/w/repo", Workspaces: []string{"/w"},
	}
	l := Layout{Home: "/home/ann", Hidden: []string{"/nonexistent-hidden"}}
	tests := []struct {
		name    string
		net     sandbox.NetworkMode
		want    []string // ordered subsequence
		notWant []string
	}{
		{"none", sandbox.NetNone,
			[]string{"--unshare-all", "--die-with-parent", "--new-session", "--tmpfs /dev", "--dev-bind-try /dev/null /dev/null", "--tmpfs /tmp", "--tmpfs /home/ann", "--bind /w /w"},
			// No --dev: it would nest a second user namespace, where the
			// helper could not mount the protected paths.
			[]string{"--share-net", "/nonexistent-hidden", "--dev ", "/usr/bin/git"}},
		{"host", sandbox.NetHost, []string{"--unshare-all", "--share-net"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := base
			p.Network.Mode = tc.net
			got := strings.Join(Args(&p, l), " ")
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
