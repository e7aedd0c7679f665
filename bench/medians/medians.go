// Package medians gives benchmarks their figures as medians: one series
// of durations against another measured alternately beside it (bare exec
// against the sandbox, a direct request against the proxy), where a mean
// would follow the slowest outlier of a busy machine.
package medians

import (
	"slices"
	"testing"
	"time"
)

// Of is the median of ds (the upper middle of an even count), 0 for none.
func Of(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// Ms is d in milliseconds, to the microsecond, as every report gives times.
func Ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Units name a comparison's metrics; an empty one is left out.
type Units struct {
	Base, Run string // the median of each series, in ms
	Added     string // what Run adds to Base, in ms
	Ratio     string // Run over Base
}

// Report puts the medians of base and run, what run adds and their ratio
// among b's metrics.
func Report(b *testing.B, base, run []time.Duration, u Units) {
	mb, mr := Of(base), Of(run)
	for _, m := range []struct {
		unit string
		v    float64
	}{
		{u.Base, Ms(mb)},
		{u.Run, Ms(mr)},
		{u.Added, Ms(mr - mb)},
		{u.Ratio, float64(mr) / float64(mb)},
	} {
		if m.unit != "" {
			b.ReportMetric(m.v, m.unit)
		}
	}
}
