package session

import (
	"os"
	"path/filepath"
	"testing"
)

// A session's temporary directory is made private on first use, kept
// while the session idles, and removed with what it holds when it closes.
func TestSessionTmp(t *testing.T) {
	st := &State{Tmp: filepath.Join(t.TempDir(), "tmp", "s_1")}
	dir, err := st.MakeTmp()
	if err != nil || dir != st.Tmp {
		t.Fatalf("MakeTmp: %q %v", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the directory: %v %v", fi, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "note"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	st.Idle(t.Context())
	if _, err := os.Stat(filepath.Join(dir, "note")); err != nil {
		t.Fatalf("idling lost it: %v", err)
	}
	st.Close(t.Context())
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("still there after the session closed: %v", err)
	}
	if dir, err := (&State{}).MakeTmp(); dir != "" || err != nil {
		t.Errorf("a session without one: %q %v", dir, err)
	}
}
