package snapshot

import (
	"sync"
	"sync/atomic"
)

// parallel calls f(i) for every i in [0, n) on up to workers goroutines and
// returns once they are all done. Indexes go out in order, one at a time,
// so a slow item does not hold back a fixed share of the others. A worker
// whose f returns false takes no more indexes; the other workers go on
// (callers that must stop them all check a shared condition in f).
func parallel(workers, n int, f func(i int) bool) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if !f(i) {
					return
				}
			}
		}()
	}
	wg.Wait()
}
