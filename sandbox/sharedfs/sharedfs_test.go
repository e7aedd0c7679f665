package sharedfs

import "testing"

// The test's temporary directory is on a local disk here; a path that
// does not exist cannot be told, and counts as shared.
func TestPath(t *testing.T) {
	if Path(t.TempDir()) {
		t.Error("a local temporary directory counts as shared")
	}
	if !Path("/nonexistent/gatehouse-sharedfs") {
		t.Error("an unreadable path counts as local")
	}
}
