package fsops

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

func TestReadFileLines(t *testing.T) {
	f := newFixture(t)
	var sb strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	f.write("ten.txt", sb.String())
	f.write("nonl.txt", "a\nb")
	f.write("empty.txt", "")
	cases := []struct {
		name          string
		file          string
		offset, limit int64
		content       string
		truncated     bool
		next, total   int64
		note          string
	}{
		{"whole", "ten.txt", 0, 0, sb.String(), false, 0, 10, ""},
		{"window", "ten.txt", 3, 2, "line 3\nline 4\n", true, 5, 10, ""},
		{"to end", "ten.txt", 9, 5, "line 9\nline 10\n", false, 0, 10, ""},
		{"last exactly", "ten.txt", 8, 3, "line 8\nline 9\nline 10\n", false, 0, 10, ""},
		{"past end", "ten.txt", 20, 0, "", false, 0, 10, "past the end"},
		{"no final newline", "nonl.txt", 2, 0, "b", false, 0, 2, ""},
		{"empty", "empty.txt", 0, 0, "", false, 0, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := ReadFile(ctx, f.roots, ReadRequest{Path: f.path(c.file), Offset: c.offset, Limit: c.limit})
			must(t, err)
			if r.Content != c.content || r.Truncated != c.truncated || r.NextOffset != c.next || r.TotalLines != c.total || !strings.Contains(r.Note, c.note) {
				t.Fatalf("got %+v", r)
			}
			if r.Unit != UnitLines || r.Path != c.file || r.Bytes != int64(len(c.content)) {
				t.Fatalf("got %+v", r)
			}
		})
	}
}

func TestReadFileLongLines(t *testing.T) {
	f := newFixture(t)
	long := strings.Repeat("x", DefaultReadBytes+100) + "\nnext\n"
	f.write("long.txt", long)
	r, err := ReadFile(ctx, f.roots, ReadRequest{Path: f.path("long.txt")})
	must(t, err)
	if len(r.Content) != DefaultReadBytes || !r.Truncated || r.NextOffset != 2 || !strings.Contains(r.Note, "was cut") {
		t.Fatalf("len %d %+v", len(r.Content), r.Note)
	}
	r, err = ReadFile(ctx, f.roots, ReadRequest{Path: f.path("long.txt"), Offset: 2})
	must(t, err)
	if r.Content != "next\n" || r.TotalLines != 2 {
		t.Fatalf("second read %+v", r)
	}
	// Many short lines stop at the byte budget, at a line boundary.
	f.write("many.txt", strings.Repeat(strings.Repeat("y", 99)+"\n", 5000))
	r, err = ReadFile(ctx, f.roots, ReadRequest{Path: f.path("many.txt"), Limit: 5000})
	must(t, err)
	if !r.Truncated || r.Lines*100 != r.Bytes || r.NextOffset != r.Lines+1 || r.TotalLines != 5000 {
		t.Fatalf("many: lines %d bytes %d next %d total %d", r.Lines, r.Bytes, r.NextOffset, r.TotalLines)
	}
}

func TestReadFileBytesAndBinary(t *testing.T) {
	f := newFixture(t)
	bin := []byte{0x7f, 'E', 'L', 'F', 0, 1, 2, 3}
	must(t, os.WriteFile(filepath.Join(f.ws, "bin"), bin, 0o644))
	f.write("latin1.txt", "caf\xe9\n")
	f.write("utf8.txt", "héllo wörld")
	// A multi-byte character straddling the 8 KiB sniff boundary is text.
	f.write("edge.txt", strings.Repeat("a", sniffBytes-1)+"é")

	r, err := ReadFile(ctx, f.roots, ReadRequest{Path: f.path("bin")})
	must(t, err)
	if !r.Binary || r.Content != "" || r.Size != 8 || !strings.Contains(r.Note, "binary file, 8 bytes") {
		t.Fatalf("binary lines: %+v", r)
	}
	r, err = ReadFile(ctx, f.roots, ReadRequest{Path: f.path("bin"), Unit: UnitBytes, Base64: true, Offset: 2, Limit: 4})
	must(t, err)
	if got, _ := base64.StdEncoding.DecodeString(r.Base64); string(got) != string(bin[2:6]) || !r.Truncated || r.NextOffset != 6 {
		t.Fatalf("binary bytes: %+v", r)
	}
	// base64 alone asks for bytes.
	r, err = ReadFile(ctx, f.roots, ReadRequest{Path: f.path("bin"), Base64: true, Limit: 3})
	must(t, err)
	if got, _ := base64.StdEncoding.DecodeString(r.Base64); string(got) != string(bin[:3]) || r.Unit != UnitBytes {
		t.Fatalf("binary, base64 without a unit: %+v", r)
	}
	r, err = ReadFile(ctx, f.roots, ReadRequest{Path: f.path("latin1.txt")})
	must(t, err)
	if !r.Binary {
		t.Fatal("invalid UTF-8 not reported as binary")
	}
	r, err = ReadFile(ctx, f.roots, ReadRequest{Path: f.path("edge.txt")})
	must(t, err)
	if r.Binary {
		t.Fatal("rune across the sniff boundary made the file binary")
	}
	// A bytes window never splits a character.
	r, err = ReadFile(ctx, f.roots, ReadRequest{Path: f.path("utf8.txt"), Unit: UnitBytes, Limit: 2})
	must(t, err)
	if r.Content != "h" || r.NextOffset != 1 {
		t.Fatalf("split rune: %+v", r)
	}
	r, err = ReadFile(ctx, f.roots, ReadRequest{Path: f.path("utf8.txt"), Unit: UnitBytes, Offset: 1, Limit: 100})
	must(t, err)
	if r.Content != "éllo wörld" || r.Truncated {
		t.Fatalf("tail: %+v", r)
	}
	if _, err := ReadFile(ctx, f.roots, ReadRequest{Path: f.path("utf8.txt"), Unit: "pages"}); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("bad unit: %v", err)
	}
}

func TestReadFileRefusals(t *testing.T) {
	f := newFixture(t)
	must(t, syscall.Mkfifo(filepath.Join(f.ws, "fifo"), 0o644))
	f.write("dir/x", "x")
	outside, err := f.roots.ResolveOutside(f.outside + "/secret")
	must(t, err)

	if _, err := ReadFile(ctx, f.roots, ReadRequest{Path: f.path("fifo")}); !errors.Is(err, workspace.ErrNotRegular) {
		t.Fatalf("fifo: %v", err)
	}
	if _, err := ReadFile(ctx, f.roots, ReadRequest{Path: f.path("dir")}); !errors.Is(err, workspace.ErrNotRegular) {
		t.Fatalf("dir: %v", err)
	}
	if _, err := ReadFile(ctx, f.roots, ReadRequest{Path: outside}); !errors.Is(err, workspace.ErrOutside) {
		t.Fatalf("outside without approval: %v", err)
	}
	r, err := ReadFile(ctx, f.roots, ReadRequest{Path: outside, AllowOutside: true})
	must(t, err)
	if r.Content != "CANARY\n" || r.Path != f.outside+"/secret" {
		t.Fatalf("approved outside read: %+v", r)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ReadFile(cancelled, f.roots, ReadRequest{Path: f.path("dir/x")}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
