package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileToolsStayInTheWorkspace: writes and edits change the workspace
// and answer with what changed; a path out of it is refused in auto mode
// before any write.
func TestFileToolsStayInTheWorkspace(t *testing.T) {
	f := autoWithSandbox(t)
	ws := f.Workspace()
	if res := f.Call(t, "write_file", `{"path":"new.txt","content":"one\ntwo\n"}`); res.IsError {
		t.Fatalf("write_file: %s", res.Text)
	}
	res := f.Call(t, "edit_file", `{"path":"new.txt","old":"two","new":"three"}`)
	if res.IsError || !strings.Contains(res.Text, "+three") {
		t.Fatalf("edit_file: %s", res.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "new.txt")); string(b) != "one\nthree\n" {
		t.Fatalf("file holds %q", b)
	}
	res = f.Call(t, "edit_file", `{"path":"new.txt","old":"absent","new":"x"}`)
	if !res.IsError {
		t.Fatalf("an edit of text that is not there succeeded: %s", res.Text)
	}
	res = f.Call(t, "write_file", `{"path":"../escape.txt","content":"x"}`)
	if !res.IsError {
		t.Fatalf("a write outside the workspace succeeded: %s", res.Text)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(ws), "escape.txt")); err == nil {
		t.Fatal("the file outside the workspace was written")
	}
	res = f.Call(t, "list_dir", `{}`)
	if res.IsError || !strings.Contains(res.Text, "new.txt") || !strings.Contains(res.Text, "a.txt") {
		t.Fatalf("list_dir: %s", res.Text)
	}
	res = f.Call(t, "search_files", `{"pattern":"thr+ee"}`)
	if res.IsError || !strings.Contains(res.Text, "new.txt") {
		t.Fatalf("search_files: %s", res.Text)
	}
}
