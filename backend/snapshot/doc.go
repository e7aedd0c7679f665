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
// Objects are keyed by the BLAKE3 hash of their content and kept by package
// pack (see its comment for blocks, encodings and the on-disk format).
// Trees are stored like git trees, so an unchanged subtree is one shared
// object.
//
// # Sequence
//
// Open takes the directory's lock, loads the object store (pack.Open drops
// uncommitted packs and torn temp files) and every session's log, then runs
// Recover, which replays any rollback journal a crash left behind.
//
// Checkpoint (checkpoint.go, walk.go) takes gcMu for reading and each root's
// lock, in root order. Per root it starts from the root's stat cache
// (statcache.go, loaded on first use) and walks the files: an entry whose
// stat is unchanged and not racy keeps its cached hash; any other file is
// read and put into one pack.Batch (big files are reflinked into loose/
// instead, where the filesystem allows), and each directory's tree is encoded
// and put too. A path-scoped request scans just its paths and splices them
// into the session's latest tree of that root (splice), when there is one.
// The batch then commits, so the objects are durable before anything names
// them; only after that is the checkpoint appended to its session's log
// (index.go, fsynced) and the new scan adopted as the root's cache, saved to
// cache/ once checkpoints pause (cacheSaveDelay). Last, maybePrune starts a
// background Prune if the store is over its budget.
//
// Reading back (changes.go, treediff.go) works on trees: List and Get come
// from the in-memory index; Changes diffs two checkpoints' trees, skipping
// equal subtrees by hash, and reads blobs only for text diffs (ChangeList
// skips those).
//
// Rollback is two steps. Plan (plan.go) changes nothing in the workspace:
// it scans the current state (storing new content, so the rollback's own
// checkpoint finds it), splits the session's later checkpoints into spans
// of calls and gaps, and decides per path what to restore; paths the person
// edited since are held unless forced. Apply (apply.go) checkpoints the
// paths it will touch (Pre, so the rollback can itself be undone), checks
// each against the plan's expectation (ErrPlanStale), writes the journal,
// then runs the steps: remove, make directories, write files and links
// through temp names and rename, set directory modes, fsync. A failed step
// puts back what was there; success takes a Post checkpoint and removes
// the journal.
//
// Garbage collection (gc.go): Prune takes gcMu exclusively, drops per root
// the oldest checkpoints beyond the byte budget (the newest always stays)
// by appending drop records to the session logs, marks every object the
// remaining checkpoints reach, and has the object store sweep the rest
// (pack.Store.Sweep rewrites partly live packs). Stat-cache entries whose
// objects went are dropped so the next scan reads those files again.
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
