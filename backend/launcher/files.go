package launcher

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/gatehouse-dev/gatehouse/backend/atomicfile"
)

// Outcome is what Write or Remove did to a launcher.
type Outcome string

const (
	Unchanged Outcome = "unchanged"
	Created   Outcome = "created"
	Written   Outcome = "written"
	Removed   Outcome = "removed"
)

// Write puts the launcher for name in dataDir's launchers directory,
// starting Gatehouse as bin. Writing it again changes nothing.
func Write(bin, dataDir, name string) (Outcome, error) {
	path, want := Path(dataDir, name), Script(bin, dataDir, name)
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, want):
		return Unchanged, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read the launcher %s: %w", path, err)
	}
	if err := os.MkdirAll(Dir(dataDir), 0o755); err != nil {
		return "", fmt.Errorf("make the launchers' directory: %w", err)
	}
	// Executable by the person's shell; nothing in it is secret.
	if err := atomicfile.Write(path, want, 0o755); err != nil {
		return "", fmt.Errorf("write the launcher %s: %w", path, err)
	}
	if old == nil {
		return Created, nil
	}
	return Written, nil
}

// Remove takes the launcher for name away, and the launchers' directory
// with it when it is left empty. A missing launcher is Unchanged; a file
// there that is not a launcher is left alone, with an error.
func Remove(dataDir, name string) (Outcome, error) {
	path := Path(dataDir, name)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return Unchanged, nil
	}
	if !Is(path) {
		return "", fmt.Errorf("%s is not a Gatehouse launcher, so it was left in place", path)
	}
	if err := os.Remove(path); err != nil {
		return "", fmt.Errorf("remove the launcher %s: %w", path, err)
	}
	_ = os.Remove(Dir(dataDir)) // only when empty
	return Removed, nil
}

// Installed lists the agents with a launcher in dataDir.
func Installed(dataDir string) []string {
	entries, _ := os.ReadDir(Dir(dataDir))
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && Is(Path(dataDir, e.Name())) {
			names = append(names, e.Name())
		}
	}
	return names
}

// Is reports whether the file at path is a launcher: its second line
// begins with Marker. Only the head is read; an agent's binary can be
// hundreds of megabytes.
func Is(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	_, rest, ok := bytes.Cut(head[:n], []byte("\n"))
	return ok && bytes.HasPrefix(rest, []byte(Marker+" "))
}
