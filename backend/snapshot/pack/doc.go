// Package pack is the snapshot store's content-addressed object store: it
// keeps blobs and trees under the BLAKE3 hash of their content, in packs
// plus loose reflinked files, under the directory package snapshot opens.
//
//	packs/p-NNNNNNNN.pack  records written by one batch, appended and fsynced once
//	packs/p-NNNNNNNN.idx   the pack's index (checksummed), written after the pack is durable
//	loose/xx/<hash>        big files cloned with FICLONE where the filesystem allows
//
// # Sequence
//
// Open reads every index into memory (a map from key to location), removes
// a pack without an index (written but never committed) and temp files of
// an interrupted write, and lists the loose objects.
//
// Writing goes through a Batch, one per checkpoint (writer.go). Put and
// PutTree claim a key first, so an object already stored or already in the
// batch is written once. Blobs of 64 KiB or more, and every tree, become a
// record of their own, compressed unless that does not pay (codec.go).
// Smaller blobs gather into 128 KiB blocks, one for compressible data and
// one for random-looking data (stored raw), so they share zstd's window and
// tables the way git's packs share deltas; the worker that fills a block
// compresses and writes it. Clone reflinks a big file into loose/ instead
// (loose.go). Commit writes the open blocks, fsyncs the pack, writes its
// index (WriteFileSync, then SyncDir), fsyncs the loose directories, and
// only then publishes the new locations: nothing may name an object before
// it is durable. Abort removes the half-written pack.
//
// Reading (read.go) looks a key up, reads its record, decodes it, and
// checks the result against the key. An object in a shared block decodes
// the whole block, which stays in a small cache (cache.go) because a plan
// previews and then restores files written side by side. An unknown key,
// or a record past the end of a truncated pack, is a *MissingError; damaged
// bytes wrap ErrCorrupt.
//
// Sweep (sweep.go) is garbage collection's second half: the caller marks
// what is live, and Sweep copies the live objects of every partly dead pack
// into a new pack (bytes unchanged; objects of a partly dead block join a
// new block), commits it, then deletes the dead packs and loose files.
//
// The format (format.go): version 2 packs are the magic then records with
// no headers; the index holds the records (encoding, offset, stored and raw
// length), then per object its key, record number, offset inside the
// decoded record and length, then a BLAKE3 checksum of all that. Version 1
// packs, one header per object, are still read; new packs are version 2.
package pack
