package snapshot

import (
	"bytes"
	"fmt"
	"strings"
)

// Text diffs are for people reading a preview: above these sizes a diff is
// not shown (the change is still listed).
const (
	maxDiffBytes = 1 << 20
	maxDiffEdits = 2000
	diffContext  = 3
)

// isBinary uses git's heuristic: a NUL byte in the first 8000 bytes.
func isBinary(b []byte) bool {
	if len(b) > 8000 {
		b = b[:8000]
	}
	return bytes.IndexByte(b, 0) >= 0
}

func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

type editOp byte

const (
	opEq  editOp = ' '
	opDel editOp = '-'
	opIns editOp = '+'
)

// myers returns the edit script from a to b (Myers' O(ND) greedy
// algorithm). If more than maxD edits are needed it returns nil.
func myers(a, b []string, maxD int) []editOp {
	n, m := len(a), len(b)
	max := n + m
	if max == 0 {
		return nil
	}
	if maxD > max {
		maxD = max
	}
	off := maxD + 1
	v := make([]int, 2*off+1)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		snap := make([]int, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m, d)
			}
		}
	}
	return nil
}

func backtrack(trace [][]int, n, m, dEnd int) []editOp {
	var ops []editOp
	x, y := n, m
	for d := dEnd; d >= 0; d-- {
		snap := trace[d] // v before step d, indices k in [-d-1, d+1]
		at := func(k int) int { return snap[k+d+1] }
		k := x - y
		var prevK int
		if d == 0 {
			prevK = 0
		} else if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := 0
		if d > 0 {
			prevX = at(prevK)
		}
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			ops = append(ops, opEq)
			x--
			y--
		}
		if d > 0 {
			if x == prevX {
				ops = append(ops, opIns)
			} else {
				ops = append(ops, opDel)
			}
		}
		x, y = prevX, prevY
	}
	for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
		ops[i], ops[j] = ops[j], ops[i]
	}
	return ops
}

// unifiedDiff renders a unified diff with 3 lines of context. ok=false when
// the inputs are binary or too big to diff usefully.
func unifiedDiff(path string, a, b []byte) (string, bool) {
	if isBinary(a) || isBinary(b) || len(a)+len(b) > maxDiffBytes {
		return "", false
	}
	la, lb := splitLines(a), splitLines(b)
	// Trim the common prefix and suffix: cheap, and it keeps Myers small.
	pre := 0
	for pre < len(la) && pre < len(lb) && la[pre] == lb[pre] {
		pre++
	}
	suf := 0
	for suf < len(la)-pre && suf < len(lb)-pre && la[len(la)-1-suf] == lb[len(lb)-1-suf] {
		suf++
	}
	mid := myers(la[pre:len(la)-suf], lb[pre:len(lb)-suf], maxDiffEdits)
	if mid == nil && (len(la)-pre-suf)+(len(lb)-pre-suf) > 0 {
		// Too many edits: show it as a full replacement of the middle.
		for range la[pre : len(la)-suf] {
			mid = append(mid, opDel)
		}
		for range lb[pre : len(lb)-suf] {
			mid = append(mid, opIns)
		}
	}
	ops := make([]editOp, 0, len(mid)+pre+suf)
	for range pre {
		ops = append(ops, opEq)
	}
	ops = append(ops, mid...)
	for range suf {
		ops = append(ops, opEq)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", path, path)
	// Walk ops, emitting hunks around changes.
	type pos struct {
		op     editOp
		ai, bi int
	}
	seq := make([]pos, len(ops))
	ai, bi := 0, 0
	for i, op := range ops {
		seq[i] = pos{op, ai, bi}
		switch op {
		case opEq:
			ai++
			bi++
		case opDel:
			ai++
		case opIns:
			bi++
		}
	}
	for i := 0; i < len(seq); {
		if seq[i].op == opEq {
			i++
			continue
		}
		start := max(0, i-diffContext)
		end := i
		for end < len(seq) {
			if seq[end].op != opEq {
				end++
				continue
			}
			run := end
			for run < len(seq) && seq[run].op == opEq {
				run++
			}
			if run == len(seq) || run-end > 2*diffContext {
				end = min(end+diffContext, len(seq))
				break
			}
			end = run
		}
		var na, nb int
		for _, p := range seq[start:end] {
			if p.op != opIns {
				na++
			}
			if p.op != opDel {
				nb++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(seq[start].ai, na), hunkRange(seq[start].bi, nb))
		for _, p := range seq[start:end] {
			var line string
			if p.op == opIns {
				line = lb[p.bi]
			} else {
				line = la[p.ai]
			}
			out.WriteByte(byte(p.op))
			out.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String(), true
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
