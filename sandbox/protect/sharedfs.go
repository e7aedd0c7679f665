package protect

import "sync"

// A directory's stat need not change when its entries do on a network
// filesystem (another machine, attribute caching) or a FUSE one (the
// server reports what it likes), so listings there are never reused.
// backend/snapshot's walk follows the same rule.

var sharedDevs sync.Map // device -> bool

// sharedDev reports whether device dev, which holds dir, is such a
// filesystem; asked once per device.
func sharedDev(dev uint64, dir string) bool {
	if v, ok := sharedDevs.Load(dev); ok {
		return v.(bool)
	}
	v := sharedFS(dir)
	sharedDevs.Store(dev, v)
	return v
}
