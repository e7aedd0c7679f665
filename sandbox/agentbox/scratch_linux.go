package agentbox

import (
	"os"

	"golang.org/x/sys/unix"
)

// makeScratch makes the run's directory of small files bound into the
// sandbox (its run file, an empty file, the hidden files' stand-ins) in
// memory when it can: in the person's runtime directory or /dev/shm,
// whichever is a tmpfs, else in the temporary directory. Making a file
// on a disk's filesystem costs milliseconds on a busy machine (ext4
// looks through its inode table for one free), which every run would
// wait for; nothing of these outlives the run.
func makeScratch() (string, error) {
	for _, base := range []string{os.Getenv("XDG_RUNTIME_DIR"), "/dev/shm"} {
		if base == "" || !isTmpfs(base) {
			continue
		}
		if dir, err := os.MkdirTemp(base, "gatehouse-run-"); err == nil {
			return dir, nil
		}
	}
	return os.MkdirTemp("", "gatehouse-run-")
}

func isTmpfs(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Type == unix.TMPFS_MAGIC
}
