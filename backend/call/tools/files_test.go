package tools_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/call/calltest"
	"github.com/gatehouse-dev/gatehouse/backend/secrets"
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

// TestBase64ReadIsRedacted: a private key in a file read as base64 (a
// Latin-1 file, which read_file calls binary, or an archive) reaches the
// model redacted, as it would as text; the read says its bytes differ.
func TestBase64ReadIsRedacted(t *testing.T) {
	r := secrets.NewRedactor()
	f := calltest.New(t, func(d *call.Deps) { d.Redact = r })
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n"
	files := map[string]string{"latin1.txt": "caf\xe9\n" + key, "archive.bin": "\x00\x01tar\x00" + key + "\x00\xff"}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(f.Workspace(), name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		res := f.Call(t, "read_file", `{"path":"`+name+`","unit":"bytes","base64":true}`)
		if res.IsError {
			t.Fatalf("%s: %s", name, res.Text)
		}
		raw, err := base64.StdEncoding.DecodeString(res.Structured["content"].(string))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if strings.Contains(string(raw), "b3BlbnNzaC1rZXkt") || !strings.Contains(string(raw), "[REDACTED:") {
			t.Errorf("%s: the model got the key's bytes: %q", name, raw)
		}
		if note, _ := res.Structured["note"].(string); !strings.Contains(note, "differ from the file's") {
			t.Errorf("%s: the read does not say its bytes were changed: %v", name, res.Structured)
		}
		// What the file holds around the key comes through as it is.
		if !strings.HasPrefix(string(raw), content[:5]) {
			t.Errorf("%s: starts %q, want %q", name, raw[:5], content[:5])
		}
	}
}

// TestMarkersNeverReplaceSecrets: the model sees a file's token as a
// marker. Writing the file back with the marker, or an edit whose old or
// new text holds it, is refused with what to do instead; an edit around
// the secret works and keeps it; a marker written into a new file is
// said to be text there.
func TestMarkersNeverReplaceSecrets(t *testing.T) {
	r := secrets.NewRedactor()
	f := autoWithSandbox(t, func(d *call.Deps) { d.Redact = r })
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	file := filepath.Join(f.Workspace(), "config.yaml")
	if err := os.WriteFile(file, []byte("name: app\ntoken: "+token+"\nport: 8080\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := f.Call(t, "read_file", `{"path":"config.yaml"}`)
	marker := ""
	if ms := secrets.Markers(res.Text); len(ms) == 1 {
		marker = ms[0]
	} else {
		t.Fatalf("the read shows %q", res.Text)
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	tests := []struct {
		name, tool, args, want string
	}{
		{"edit through the marker", "edit_file", `{"path":"config.yaml","old":` + q("token: "+marker+"\nport: 8080") + `,"new":` + q("token: "+marker+"\nport: 9090") + `}`, "stands for a secret in config.yaml"},
		{"edit that writes the marker", "edit_file", `{"path":"config.yaml","old":"name: app","new":` + q("name: app\nbackup: "+marker) + `}`, "the file would get the marker's text"},
		{"write over the secret", "write_file", `{"path":"config.yaml","content":` + q("name: app\ntoken: "+marker+"\nport: 9090\n") + `}`, "writing it would replace the secret"},
	}
	for _, tt := range tests {
		res := f.Call(t, tt.tool, tt.args)
		if !res.IsError || !strings.Contains(res.Text, tt.want) {
			t.Errorf("%s: %q, want an error saying %q", tt.name, res.Text, tt.want)
		}
	}
	if res := f.Call(t, "edit_file", `{"path":"config.yaml","old":"port: 8080","new":"port: 9090"}`); res.IsError {
		t.Fatalf("an edit around the secret: %s", res.Text)
	}
	if b, _ := os.ReadFile(file); string(b) != "name: app\ntoken: "+token+"\nport: 9090\n" {
		t.Errorf("the file holds %q", b)
	}
	res = f.Call(t, "write_file", `{"path":"copy.yaml","content":`+q("token: "+marker+"\n")+`}`)
	if res.IsError || !strings.Contains(res.Text, "is in the file as text") {
		t.Errorf("a marker written into a new file: %q", res.Text)
	}
}

// TestPagedReadIsRedacted: a page of a paged read that starts inside a
// private key, or cuts a token in two, shows none of it: the page is
// redacted within the file around it.
func TestPagedReadIsRedacted(t *testing.T) {
	f := calltest.New(t, func(d *call.Deps) { d.Redact = secrets.NewRedactor() })
	const body1, body2 = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", "QyNTUxOQAAACDxZ0X6bUE9oU3+T6ryqbFyG7mXf7cLkC9pTgqz5O8cNQAAAJjJ0m6NydJu"
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	content := "notes\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + body1 + "\n" + body2 + "\n-----END OPENSSH PRIVATE KEY-----\ntoken " + token + "\nend\n"
	if err := os.WriteFile(filepath.Join(f.Workspace(), "mixed.txt"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	cut := strings.Index(content, token) + 10
	for _, args := range []string{
		`{"path":"mixed.txt","offset":4,"limit":2}`,                                   // the key's second body line and its END
		`{"path":"mixed.txt","offset":3,"limit":1}`,                                   // its first body line alone
		`{"path":"mixed.txt","unit":"bytes","offset":0,"limit":` + itoa(cut) + `}`,    // the token's head
		`{"path":"mixed.txt","unit":"bytes","offset":` + itoa(cut) + `,"limit":4096}`, // its tail
	} {
		res := f.Call(t, "read_file", args)
		if res.IsError {
			t.Fatalf("%s: %s", args, res.Text)
		}
		got, _ := res.Structured["content"].(string)
		for _, secret := range []string{body1[:20], body2[:20], token[:12], token[len(token)-12:]} {
			if strings.Contains(got, secret) || strings.Contains(res.Text, secret) {
				t.Errorf("%s: the page shows %q: %q", args, secret, got)
			}
		}
	}
	// A search that matches a line of the key's body shows it redacted.
	res := f.Call(t, "search_files", `{"pattern":"`+body2[:12]+`"}`)
	if res.IsError || strings.Contains(res.Text, body2[:20]) || !strings.Contains(res.Text, "[REDACTED:") {
		t.Errorf("search_files: %s", res.Text)
	}
	// What is not secret on such a page comes through.
	if res := f.Call(t, "read_file", `{"path":"mixed.txt","offset":6,"limit":2}`); !strings.Contains(res.Text, "token [REDACTED:") || !strings.Contains(res.Text, "end") {
		t.Errorf("the page after the key: %q", res.Text)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
