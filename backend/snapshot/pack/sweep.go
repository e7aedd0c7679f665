package pack

import (
	"fmt"
	"os"
)

// Sweep removes the objects live does not keep. Packs that are partly live
// are copied (live objects only, bytes unchanged; a live object of a partly
// dead block joins a new block) into a new pack first. It returns how many
// packs it rewrote. The caller keeps writers out meanwhile.
func (o *Store) Sweep(live func(Key) bool) (int, error) {
	o.mu.Lock()
	perPack := map[uint32][]idxEnt{}
	deadPack := map[uint32]bool{}
	var deadLoose []Key
	for h, l := range o.locs {
		if l.pack == 0 {
			if !live(h) {
				deadLoose = append(deadLoose, h)
			}
			continue
		}
		if live(h) {
			perPack[l.pack] = append(perPack[l.pack], idxEnt{h, l})
		} else {
			deadPack[l.pack] = true
		}
	}
	o.mu.Unlock()
	rewritten := 0
	b := o.NewBatch()
	var emptied []uint32
	for id := range deadPack {
		for _, e := range perPack[id] {
			var err error
			if e.loc.enc == encBlock {
				// Its block is partly dead: the object joins a new block.
				var raw []byte
				if raw, err = o.Get(e.h); err == nil {
					err = b.putAgain(e.h, raw)
				}
			} else {
				var stored []byte
				if stored, err = o.readStored(e.loc); err == nil {
					err = b.putStored(e.h, e.loc, stored)
				}
			}
			if err != nil {
				b.Abort()
				return rewritten, fmt.Errorf("repack snapshot objects: %w", err)
			}
		}
		emptied = append(emptied, id)
		rewritten++
	}
	if err := b.Commit(); err != nil {
		return rewritten, err
	}
	o.mu.Lock()
	for _, id := range emptied {
		if p := o.packs[id]; p != nil && p.f != nil {
			p.f.Close()
		}
		delete(o.packs, id)
	}
	for h, l := range o.locs {
		if deadPack[l.pack] { // live ones were re-pointed at the new pack by commit
			delete(o.locs, h)
		}
	}
	for _, h := range deadLoose {
		if l, ok := o.locs[h]; ok {
			o.looseBytes -= l.stored
			delete(o.locs, h)
		}
	}
	o.mu.Unlock()
	o.blocks.clear()
	for _, id := range emptied {
		_ = os.Remove(o.packPath(id, "idx"))
		_ = os.Remove(o.packPath(id, "pack"))
	}
	for _, h := range deadLoose {
		_ = os.Remove(o.loosePath(h))
	}
	return rewritten, SyncDir(o.packDir())
}
