package protect

import "golang.org/x/sys/unix"

// renameNoReplace renames from to to, failing if to exists: a plain rename
// would silently replace a person's empty directory.
func renameNoReplace(from, to string) error {
	return unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
}
