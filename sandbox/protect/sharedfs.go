package protect

import (
	"sync"

	"github.com/gatehouse-dev/gatehouse/sandbox/sharedfs"
)

// Listings on a shared filesystem are never reused (see package sharedfs).

var sharedDevs sync.Map // device -> bool

// sharedDev reports whether device dev, which holds dir, is such a
// filesystem; asked once per device.
func sharedDev(dev uint64, dir string) bool {
	if v, ok := sharedDevs.Load(dev); ok {
		return v.(bool)
	}
	v := sharedfs.Path(dir)
	sharedDevs.Store(dev, v)
	return v
}
