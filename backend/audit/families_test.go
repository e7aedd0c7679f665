package audit

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every kind the daemon writes is one `gatehouse log --kind` accepts: the
// kinds named where rows are recorded or emitted, read from the source,
// belong to Families.
func TestFamiliesCoverWrittenKinds(t *testing.T) {
	written := regexp.MustCompile(`\b(?:record|recordSync|queue|Emit|Append|AppendWritten)\([^"\n]*"([a-z_]+)\.[a-z_.]+"|\b(?:Kind:|kind :=) *"([a-z_]+)\.[a-z_.]+"`)
	seen := map[string]string{}
	for _, dir := range []string{"../../backend", "../../app"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range written.FindAllStringSubmatch(string(b), -1) {
				seen[m[1]+m[2]] = p
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) < 10 {
		t.Fatalf("found only %d families in the source; the pattern no longer matches how rows are written", len(seen))
	}
	for f, p := range seen {
		if !slices.Contains(Families, f) {
			t.Errorf("%s writes kinds of family %q, which audit.Families lacks: `gatehouse log --kind %s` would refuse it", p, f, f)
		}
	}
}
