package pack

import "testing"

// The block cache keeps to its byte budget by dropping the oldest blocks,
// and a block put twice is kept once.
func TestBlockCacheEvictsOldestFirst(t *testing.T) {
	var c blockCache
	const n = 4
	size := blockCacheBytes / (n - 1) // n blocks do not fit, n-1 do
	for i := range n {
		c.put(blockKey{pack: 1, off: int64(i)}, make([]byte, size))
	}
	if c.get(blockKey{pack: 1, off: 0}) != nil {
		t.Fatal("the oldest block survived going over budget")
	}
	for i := 1; i < n; i++ {
		if c.get(blockKey{pack: 1, off: int64(i)}) == nil {
			t.Fatalf("block %d evicted, only the oldest should go", i)
		}
	}
	c.put(blockKey{pack: 1, off: 1}, make([]byte, size))
	if c.bytes != (n-1)*size || len(c.order) != n-1 {
		t.Fatalf("a block put twice is counted twice: %d bytes, %d blocks", c.bytes, len(c.order))
	}
	c.clear()
	if c.get(blockKey{pack: 1, off: 1}) != nil || c.bytes != 0 {
		t.Fatal("clear left blocks behind")
	}
}
