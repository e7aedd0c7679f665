// Package workspace confines file access to a session's workspace roots.
//
// Resolve turns what an agent typed into a Path: symlinks and ".." are
// resolved first, then the result is checked against the roots. Opening a
// Path does not trust that check: every open walks the path again relative
// to a descriptor of the root with symlinks forbidden (openat2 with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS on Linux, an O_NOFOLLOW walk
// elsewhere), so a symlink swapped in after the check makes the open fail
// instead of leaving the workspace.
package workspace
