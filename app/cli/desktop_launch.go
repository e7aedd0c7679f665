package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// The two programs. gatehouse is the small one every command, hook and
// agent bridge runs (no cgo GUI libraries to load); gatehouse-desktop,
// next to it, links GTK and WebKit and draws the window.
const (
	lightProgram   = "gatehouse"
	desktopProgram = "gatehouse-desktop"
)

// sibling is the path of the named program next to this executable.
func sibling(name string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this executable: %w", err)
	}
	p := filepath.Join(filepath.Dir(exe), name)
	st, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable file", p)
	}
	return p, nil
}

// execSibling replaces this process with the named program next to it:
// same pid, same arguments, same environment.
func execSibling(path string) error {
	err := syscall.Exec(path, append([]string{path}, os.Args[1:]...), os.Environ())
	return userErrorf(err, "cannot start %s: %v", path, err)
}

// execDesktop hands a command only the desktop build has (the tray on
// macOS) to gatehouse-desktop.
func execDesktop(what string) error {
	p, err := sibling(desktopProgram)
	if err != nil {
		return userErrorf(err, "%s needs %s next to this gatehouse, and it is not there; `make build` builds both", what, desktopProgram)
	}
	return execSibling(p)
}
