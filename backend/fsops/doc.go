// Package fsops carries out the file tools (read_file, write_file,
// edit_file, list_dir, search_files) on paths that workspace has already
// resolved. Every operation is bounded in size and honours ctx; every
// result is JSON for the agent. Policy, approval, checkpoints, audit and
// redaction happen around these calls, not here.
//
// Operations take a workspace.Path rather than a string so that the path
// the policy checked is the one operated on: opens refuse any symlink
// that appears after resolution.
package fsops
