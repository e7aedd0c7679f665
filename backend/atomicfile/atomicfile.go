// Package atomicfile replaces small files so that readers see the old
// content or the new, never a mix, even across a crash.
package atomicfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data: a temporary file in the same directory is
// written, given perm, synced and renamed over path, then the directory is
// synced so the rename survives a crash.
func Write(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(fmt.Errorf("set mode: %w", err))
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(fmt.Errorf("write: %w", err))
	}
	if err := tmp.Sync(); err != nil {
		return fail(fmt.Errorf("sync: %w", err))
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("close: %w", err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("rename into place: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // durability of the rename; not fatal where unsupported
		d.Close()
	}
	return nil
}

// ReadJSON decodes the JSON file at path (one Write replaced) into v; what
// names the file in errors ("the apply journal"). found is false, with no
// error, when there is no file, and true once there is one, even when it
// cannot be read or decoded.
func ReadJSON(path, what string, v any) (found bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return true, fmt.Errorf("read %s: %w", what, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return true, fmt.Errorf("%s %s is damaged: %w", what, path, err)
	}
	return true, nil
}
