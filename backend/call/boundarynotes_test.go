package call

import (
	"strings"
	"testing"
)

func TestBoundaryNotes(t *testing.T) {
	ws := []string{"/home/u/proj"}
	hidden := func(p string) bool { return strings.HasPrefix(p, "/home/u/") }
	tests := []struct {
		name, stderr string
		want         string // a part of the one note; "" for none
	}{
		{"write outside", "touch: cannot touch '/etc/motd': Read-only file system\n", "kept /etc/motd read-only"},
		{"hidden secret", "cat: /home/u/.ssh/id_rsa: No such file or directory\n", "hides /home/u/.ssh/id_rsa"},
		{"home-relative", "bash: ~/.aws/credentials: Permission denied\n", "refused /home/u/.aws/credentials"},
		{"inside the workspace", "cat: /home/u/proj/missing.txt: No such file or directory\n", ""},
		{"visible elsewhere", "cat: /usr/share/nope: No such file or directory\n", ""},
		{"refused outside", "touch: cannot touch '/etc/motd': Permission denied\n", "refused /etc/motd"},
		{"no errno", "warning: /etc/motd is old\n", ""},
		{"relative, outside", "fatal: could not create leading directories of '../../wt-x/.git': Read-only file system\n", "kept /home/u/wt-x/.git read-only"},
		{"relative, inside", "fatal: could not create leading directories of '../lib/x': Read-only file system\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			notes := boundaryNotes([]byte(tt.stderr), "/home/u/proj/sub", ws, "/home/u", hidden)
			if tt.want == "" {
				if len(notes) != 0 {
					t.Fatalf("notes %q, want none", notes)
				}
				return
			}
			if len(notes) != 1 || !strings.Contains(notes[0], tt.want) || !strings.Contains(notes[0], "Gatehouse's sandbox") {
				t.Fatalf("notes %q, want one saying %q", notes, tt.want)
			}
		})
	}
}
