package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// countedNoun is a count printed straight before a plural noun ("%d
// files"), which reads "1 files" when the count is 1.
var countedNoun = regexp.MustCompile(`%d ([a-z]+s)\b`)

// notNouns end in s but follow a number without being counted by it
// ("seq %d was removed").
var notNouns = map[string]bool{"was": true, "is": true, "has": true, "does": true}

// Counts the CLI prints go through plural.Count, so one is never "1
// files" or "1 calls".
func TestCLICountsAgreeWithTheirNouns(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := countedNoun.FindStringSubmatch(line); m != nil && !notNouns[m[1]] {
				t.Errorf("%s:%d prints %q: use plural.Count so that a count of 1 reads right", f, i+1, m[0])
			}
		}
	}
}
