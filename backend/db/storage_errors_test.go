package db

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mattn/go-sqlite3"
)

func TestClassify(t *testing.T) {
	plain := errors.New("something else")
	tests := []struct {
		name string
		err  error
		want error // nil: returned unchanged
	}{
		{"sqlite full", sqlite3.Error{Code: sqlite3.ErrFull}, ErrDiskFull},
		{"sqlite readonly", sqlite3.Error{Code: sqlite3.ErrReadonly}, ErrReadOnly},
		{"sqlite ioerr", sqlite3.Error{Code: sqlite3.ErrIoErr}, ErrDiskIO},
		{"sqlite ioerr with ENOSPC", sqlite3.Error{Code: sqlite3.ErrIoErr, SystemErrno: syscall.ENOSPC}, ErrDiskFull},
		{"wrapped sqlite full", fmt.Errorf("insert: %w", sqlite3.Error{Code: sqlite3.ErrFull}), ErrDiskFull},
		{"os EROFS", &fs.PathError{Op: "open", Path: "x", Err: syscall.EROFS}, ErrReadOnly},
		{"os ENOSPC", &fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}, ErrDiskFull},
		{"sqlite constraint", sqlite3.Error{Code: sqlite3.ErrConstraint}, nil},
		{"plain", plain, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Classify(tc.err)
			if tc.want == nil {
				if got != tc.err {
					t.Fatalf("Classify changed a non-storage error: %v", got)
				}
				if IsStorageFault(got) {
					t.Fatal("IsStorageFault true for a non-storage error")
				}
				return
			}
			if !errors.Is(got, tc.want) {
				t.Fatalf("Classify = %v, want Is(%v)", got, tc.want)
			}
			if got.Error() != tc.want.Error() {
				t.Fatalf("message %q, want only the plain sentence %q", got.Error(), tc.want.Error())
			}
			var sq sqlite3.Error
			if _, isSQLite := tc.err.(sqlite3.Error); isSQLite && !errors.As(got, &sq) {
				t.Fatal("driver error no longer reachable with errors.As")
			}
			if !IsStorageFault(got) || !IsStorageFault(tc.err) {
				t.Fatal("IsStorageFault false")
			}
			if Classify(got) != got {
				t.Fatal("Classify is not idempotent")
			}
		})
	}
	if Classify(nil) != nil {
		t.Fatal("Classify(nil) != nil")
	}
}

// SQLite's max_page_count makes a real SQLITE_FULL without filling a disk.
func TestClassifyRealDiskFull(t *testing.T) {
	ctx := t.Context()
	sqlDB, err := Open(ctx, filepath.Join(t.TempDir(), "g.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sqlDB.Close()
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "CREATE TABLE big (b BLOB)"); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := conn.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages+2)); err != nil {
		t.Fatal(err)
	}
	_, err = conn.ExecContext(ctx, "INSERT INTO big VALUES (zeroblob(1000000))")
	if err == nil {
		t.Fatal("insert past max_page_count succeeded")
	}
	if got := Classify(err); !errors.Is(got, ErrDiskFull) {
		t.Fatalf("Classify(%v) = %v, want ErrDiskFull", err, got)
	}
}
