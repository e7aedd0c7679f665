package db

import (
	"errors"
	"syscall"

	"github.com/mattn/go-sqlite3"
)

// Sentinels for storage faults a person can fix. Test with errors.Is; the
// underlying driver error stays reachable with errors.As.
var (
	ErrDiskFull = errors.New("the disk holding the Gatehouse database is full; free some space and try again")
	ErrReadOnly = errors.New("the Gatehouse database is read-only; make its data directory writable and try again")
	ErrDiskIO   = errors.New("the disk holding the Gatehouse database reported an I/O error; check the disk and its free space, then try again")
)

// StorageError carries one of the sentinels above plus the original error.
// Its text is the sentinel's plain sentence only, so driver details (which can
// quote SQL) stay out of user-facing messages.
type StorageError struct {
	Kind error
	Err  error
}

func (e *StorageError) Error() string   { return e.Kind.Error() }
func (e *StorageError) Unwrap() []error { return []error{e.Kind, e.Err} }

// Classify maps disk-full, read-only and I/O errors (from SQLite or from the
// OS) to a *StorageError; any other error is returned unchanged.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	var se *StorageError
	if errors.As(err, &se) {
		return err
	}
	if kind := storageKind(err); kind != nil {
		return &StorageError{Kind: kind, Err: err}
	}
	return err
}

// IsStorageFault reports whether err is a disk-full, read-only or I/O fault.
func IsStorageFault(err error) bool {
	return errors.Is(err, ErrDiskFull) || errors.Is(err, ErrReadOnly) || errors.Is(err, ErrDiskIO) ||
		storageKind(err) != nil
}

func storageKind(err error) error {
	var sqErr sqlite3.Error
	if errors.As(err, &sqErr) {
		// The OS errno is more precise than the SQLite code: a failed WAL
		// write on a full disk can surface as SQLITE_IOERR with ENOSPC.
		if k := errnoKind(sqErr.SystemErrno); k != nil {
			return k
		}
		switch sqErr.Code {
		case sqlite3.ErrFull:
			return ErrDiskFull
		case sqlite3.ErrReadonly:
			return ErrReadOnly
		case sqlite3.ErrIoErr:
			return ErrDiskIO
		}
		return nil
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errnoKind(errno)
	}
	return nil
}

func errnoKind(errno syscall.Errno) error {
	switch errno {
	case syscall.ENOSPC, syscall.EDQUOT:
		return ErrDiskFull
	case syscall.EROFS:
		return ErrReadOnly
	case syscall.EIO:
		return ErrDiskIO
	}
	return nil
}
