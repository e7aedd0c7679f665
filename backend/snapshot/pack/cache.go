package pack

import "sync"

type blockKey struct {
	pack uint32
	off  int64
}

// blockCache keeps recently decoded blocks, up to a byte budget: a plan
// decodes the blocks of the files it previews and Apply then finds them.
type blockCache struct {
	mu    sync.Mutex
	m     map[blockKey][]byte
	order []blockKey // oldest first
	bytes int
}

const blockCacheBytes = 32 << 20

func (c *blockCache) get(k blockKey) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *blockCache) put(k blockKey, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[blockKey][]byte{}
	}
	if _, ok := c.m[k]; ok {
		return
	}
	for c.bytes+len(b) > blockCacheBytes && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.m[old])
		delete(c.m, old)
	}
	c.m[k] = b
	c.order = append(c.order, k)
	c.bytes += len(b)
}

// clear drops every block, once a sweep has removed packs they may come
// from.
func (c *blockCache) clear() {
	c.mu.Lock()
	c.m, c.order, c.bytes = nil, nil, 0
	c.mu.Unlock()
}
