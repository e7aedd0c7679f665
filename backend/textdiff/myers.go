package textdiff

// Edit kinds in an edit script.
const (
	opEq  = ' '
	opDel = '-'
	opIns = '+'
)

// op is one step of an edit script: a line kept, removed from a or added
// from b. a and b index the line in each side (only meaningful where the
// line exists on that side).
type op struct {
	kind byte
	a, b int
}

// myers finds a shortest edit script turning a into b (E. Myers, "An
// O(ND) difference algorithm", 1986), giving up once more than maxD
// edits would be needed. Lines are compared as interned ids.
func myers(a, b []int, maxD int) ([]op, bool) {
	n, m := len(a), len(b)
	if maxD > n+m {
		maxD = n + m
	}
	off := maxD + 1
	v := make([]int32, 2*maxD+3)
	// trace[d] holds v[-d..d] after step d, for walking the path back.
	var trace [][]int32
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
				return backtrack(trace, n, m), true
			}
		}
		trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
	}
	return nil, false
}

func backtrack(trace [][]int32, n, m int) []op {
	var rev []op
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1]
		get := func(k int) int { return int(prev[k+d-1]) }
		k := x - y
		var pk int
		if k == -d || (k != d && get(k-1) < get(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := get(pk)
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, op{opEq, x, y})
		}
		if x == px {
			y--
			rev = append(rev, op{opIns, x, y})
		} else {
			x--
			rev = append(rev, op{opDel, x, y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, op{opEq, x, y})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
