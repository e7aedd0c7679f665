//go:build integration

package audit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/db"
	"github.com/gatehouse-dev/gatehouse/backend/fulldisk"
)

// A really full file system: Append fails with db.ErrDiskFull, the head does
// not move, and once space is freed the store carries on with an intact chain.
func TestRealDiskFullThenRecovers(t *testing.T) {
	ctx := t.Context()
	dir := fulldisk.New(t, "size=4m,mode=0700")
	filler := filepath.Join(dir, "filler")
	if err := os.WriteFile(filler, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "gatehouse.db")
	sqlDB := openTestDB(t, path)
	s, err := Open(ctx, sqlDB, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	big := `{"out":"` + strings.Repeat("y", 256<<10) + `"}`
	var last Event
	var fullErr error
	for i := 0; i < 100 && fullErr == nil; i++ {
		e, err := s.Append(ctx, ev("s", "tool.result", "agent:a", big))
		if err != nil {
			fullErr = err
			break
		}
		last = e
	}
	if fullErr == nil {
		t.Fatal("100 appends of 256 KiB fit on a 4 MiB file system")
	}
	if !errors.Is(fullErr, db.ErrDiskFull) {
		t.Fatalf("Append on a full disk = %v, want db.ErrDiskFull", fullErr)
	}
	var se *db.StorageError
	if errors.As(fullErr, &se) {
		t.Logf("full disk surfaced as: %v", se.Err)
	}
	if seq, head, err := s.Head(ctx); err != nil || seq != last.Seq || head != last.Hash {
		t.Fatalf("after the failed append Head = %d %s %v, want %d %s", seq, head, err, last.Seq, last.Hash)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	e, err := s.Append(ctx, ev("s", "tool.result", "agent:a", `{"after":"space returned"}`))
	if err != nil {
		t.Fatalf("Append after space returned: %v", err)
	}
	if e.Seq != last.Seq+1 || e.PrevHash != last.Hash {
		t.Fatalf("chain after recovery: %d/%s, want %d/%s", e.Seq, e.PrevHash, last.Seq+1, last.Hash)
	}
	rep, err := s.Verify(ctx)
	if err != nil || !rep.OK || rep.LastSeq != e.Seq {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
	var integrity string
	if err := sqlDB.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("integrity_check = %q, %v", integrity, err)
	}
}

// A data directory on a read-only file system is refused with a clear error.
func TestReadOnlyFileSystem(t *testing.T) {
	ctx := t.Context()
	dir := fulldisk.New(t, "size=4m,mode=0700")
	path := filepath.Join(dir, "gatehouse.db")
	sqlDB, err := db.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	sqlDB.Close()
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount read-only: %v", err)
	}
	_, err = db.Open(ctx, path, nil)
	if !errors.Is(err, db.ErrReadOnly) {
		t.Fatalf("db.Open on a read-only file system = %v, want db.ErrReadOnly", err)
	}
}
