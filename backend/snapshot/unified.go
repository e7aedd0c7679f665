package snapshot

import "github.com/gatehouse-dev/gatehouse/backend/textdiff"

// maxDiffBytes bounds the files whose changes are shown as text diffs.
const maxDiffBytes = 1 << 20

// unifiedDiff renders a unified diff with 3 lines of context. ok=false when
// the inputs are binary or too big to diff usefully.
func unifiedDiff(path string, a, b []byte) (string, bool) {
	r := textdiff.Diff("a/"+path, "b/"+path, a, b, textdiff.Options{MaxBytes: maxDiffBytes})
	if r.Binary || r.TooLarge {
		return "", false
	}
	return r.Text, true
}
