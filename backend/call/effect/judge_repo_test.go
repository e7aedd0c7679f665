package effect

import (
	"crypto/sha1"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/policy"
)

// fakeIndex is a version 2 git index listing paths (stat data and
// object names zero: only the paths are read), with its checksum, so git
// itself reads it too.
func fakeIndex(paths ...string) []byte {
	b := []byte("DIRC\x00\x00\x00\x02")
	b = binary.BigEndian.AppendUint32(b, uint32(len(paths)))
	for _, p := range paths {
		e := make([]byte, indexStatBytes+indexSHA1+2)
		binary.BigEndian.PutUint32(e[24:28], 0o100644)
		binary.BigEndian.PutUint16(e[indexStatBytes+indexSHA1:], uint16(len(p)))
		e = append(e, p...)
		e = append(e, make([]byte, 8-(len(e)%8))...)
		b = append(b, e...)
	}
	sum := sha1.Sum(b)
	return append(b, sum[:]...)
}

// TestJudgeSyntheticChangeSets judges change sets made up by hand, as a
// checked run's (the workspace holds the after, a map the before): what
// of .git they delete, and how much of the tracked files.
func TestJudgeSyntheticChangeSets(t *testing.T) {
	before := map[string]string{
		".git/HEAD":            "ref: refs/heads/main\n",
		".git/refs/heads/main": "1111111111111111111111111111111111111111\n",
		".git/refs/tags/v1":    "1111111111111111111111111111111111111111\n",
		".git/index":           string(fakeIndex("a.txt", "b.txt", "c.txt", "d.txt")),
	}
	del := func(p string, k Kind) Change { return Change{Path: p, Op: Delete, Kind: k, Size: 6} }
	cases := []struct {
		name    string
		changes []Change
		rule    string
		says    string
	}{
		{"the whole .git", []Change{del(".git", Dir), del(".git/HEAD", File)}, "repository-delete", "the whole .git directory"},
		{"HEAD", []Change{del(".git/HEAD", File)}, "repository-delete", "(HEAD)"},
		{"the refs", []Change{del(".git/refs", Dir), del(".git/refs/heads", Dir), del(".git/refs/heads/main", File)}, "repository-delete", ".git/refs"},
		{"the index", []Change{del(".git/index", File)}, "repository-delete", ".git/index (which listed 4 tracked files)"},
		{"a tag", []Change{del(".git/refs/tags/v1", File)}, "repository-delete", "tag v1"},
		{"the index rewritten", []Change{{Path: ".git/index", Op: Modify, Kind: File}}, "effect-apply", ""},
		{"3 of 4 tracked", []Change{del("a.txt", File), del("b.txt", File), del("c.txt", File)}, "tracked-majority-delete", "3 of the workspace's 4 tracked files"},
		{"2 of 4 tracked", []Change{del("a.txt", File), del("b.txt", File)}, "effect-apply", ""},
		{"3 of 4 moved", []Change{del("a.txt", File), del("b.txt", File), del("c.txt", File),
			{Path: "x/a.txt", Op: Create, Kind: File, Size: 6}, {Path: "x/b.txt", Op: Create, Kind: File, Size: 6}, {Path: "x/c.txt", Op: Create, Kind: File, Size: 6}}, "effect-apply", ""},
		{"3 untracked of 4", []Change{del("n1", File), del("n2", File), del("n3", File)}, "effect-apply", ""},
	}
	p := policy.Builtin()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			os.MkdirAll(filepath.Join(ws, ".git", "objects"), 0o755)
			// After: the before, less what the change set deletes.
			for rel, content := range before {
				gone := false
				for _, c := range tc.changes {
					gone = gone || (c.Op == Delete && (c.Path == rel || strings.HasPrefix(rel, c.Path+"/")))
				}
				if !gone {
					os.MkdirAll(filepath.Dir(filepath.Join(ws, rel)), 0o755)
					os.WriteFile(filepath.Join(ws, rel), []byte(content), 0o644)
				}
			}
			prior := func(rel string) ([]byte, error) {
				if c, ok := before[rel]; ok {
					return []byte(c), nil
				}
				return nil, fs.ErrNotExist
			}
			cs := ChangeSets{Workspaces: []string{ws}, Sets: []Set{{Changes: tc.changes}}, Uppers: []string{""}, Priors: []Prior{prior}}
			d := p.DecideEffect(PolicyEffect(t.Context(), cs))
			if d.Rule.ID != tc.rule || !strings.Contains(d.Reason, tc.says) {
				t.Fatalf("%s (%s), want %s saying %q", d.Rule.ID, d.Reason, tc.rule, tc.says)
			}
		})
	}
}
