package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesAndSetsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := Write(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two"), 0o640); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(b) != "two" || st.Mode().Perm() != 0o640 {
		t.Fatalf("content %q mode %v", b, st.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
	if err := Write(filepath.Join(dir, "missing", "f"), nil, 0o600); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
}

func TestReadJSON(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	var v struct{ A int }
	if found, err := ReadJSON(p, "the file", &v); found || err != nil {
		t.Fatalf("missing file: found %v, err %v", found, err)
	}
	if err := Write(p, []byte(`{"A": 7}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if found, err := ReadJSON(p, "the file", &v); !found || err != nil || v.A != 7 {
		t.Fatalf("found %v, err %v, v %+v", found, err, v)
	}
	if err := Write(p, []byte(`{"A":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if found, err := ReadJSON(p, "the file", &v); !found || err == nil || !strings.Contains(err.Error(), "the file "+p+" is damaged") {
		t.Fatalf("damaged file: found %v, err %v", found, err)
	}
}
