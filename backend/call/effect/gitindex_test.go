package effect

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestIndexPaths reads the paths of real indexes of every version git
// writes (an intent-to-add entry makes v3 use extended flags), as git
// ls-files lists them.
func TestIndexPaths(t *testing.T) {
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			ws := gitRepo(t, 1)
			script := "mkdir -p src/deep && for i in 1 2 3; do echo $i > src/deep/file$i.go; echo $i > src/f$i; done && " +
				"git add -A && echo x > ita && git add -N ita && git update-index --index-version " + version
			if out, err := exec.Command("sh", "-c", "cd "+ws+" && "+script).CombinedOutput(); err != nil {
				t.Fatalf("%v %s", err, out)
			}
			b, err := os.ReadFile(filepath.Join(ws, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := indexPaths(b)
			if err != nil {
				t.Fatal(err)
			}
			out, _ := exec.Command("git", "-C", ws, "ls-files").Output()
			want := strings.Fields(string(out))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("paths %v, want %v", got, want)
			}
		})
	}
	for _, bad := range [][]byte{nil, []byte("DIRC"), []byte("DIRC\x00\x00\x00\x09\x00\x00\x00\x00"), []byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x05")} {
		if _, err := indexPaths(bad); err == nil {
			t.Errorf("%q read as an index", bad)
		}
	}
}
