// Package snapshot records the files an agent's call may change and puts them
// back on request. It is the daemon's undo button.
//
// Everything lives under one directory the caller hands to Open (the data
// dir's snapshots/), never inside a workspace, and the user's .git is read as
// plain files only: git is never run.
//
// Layout of that directory:
//
//	packs/p-NNNNNNNN.pack  objects written by one checkpoint, appended and fsynced once
//	packs/p-NNNNNNNN.idx   the pack's index (checksummed), written after the pack is durable
//	loose/xx/<hash>        big files cloned with FICLONE where the filesystem allows
//	sessions/<key>.log     append-only, fsynced checkpoint records of one session
//	cache/<root>.stat      stat cache of one workspace root (rebuilt if lost)
//	journal/<id>.json      an in-flight rollback; replayed by Open after a crash
//
// Why packs and log files rather than one file per object or SQLite: a first
// checkpoint of a large workspace writes ~100k objects, and one file (plus
// fsync) per object is what makes shadow-git slow; one pack per checkpoint
// costs one fsync. Checkpoint metadata is tiny, append-only and read whole at
// Open, so a line-per-record log with a checksum per line gives durability
// (fsync after append, torn tail ignored) without a second storage engine.
//
// Objects are keyed by the BLAKE3 hash of their content. Small blobs are
// gathered into 128 KiB blocks compressed as one zstd frame (random-looking
// ones into uncompressed blocks), so they share zstd's window and tables the
// way git's packs share deltas; reading one decodes its block. Bigger blobs
// and trees are compressed alone, unless that does not pay. Trees are stored
// like git trees, so an unchanged subtree is one shared object. A checkpoint's tree for a
// path-scoped request is the previous tree of the same root with just those
// paths replaced.
//
// Speed: a checkpoint lstat()s every file (in parallel) and re-reads only
// those whose size, mtime, ctime, inode or mode changed, or that were
// modified in the same clock tick as the scan that cached them (git's racy
// rule). A directory whose own stat is unchanged is not listed again: adding,
// removing or renaming an entry always moves its mtime and ctime. A
// path-scoped checkpoint touches only its paths. No file watcher
// is used: inotify misses writes through mmap and through hard links
// elsewhere, and a missed change here is a silent wrong rollback.
//
// Rollback guarantee: Apply writes a journal (fsynced) before it touches the
// workspace and every step is idempotent, so after a crash at any point Open
// finishes the rollback: the workspace ends exactly in the target state of
// the plan. A crash before the journal is durable leaves the workspace
// untouched.
package snapshot
