package initproc

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// mountEntry is one line of /proc/self/mountinfo: a mount, the mount it
// is attached to, and where.
type mountEntry struct {
	ID, Parent int
	Point      string
}

// readMountInfo lists this process's mounts in the order they were made.
func readMountInfo() ([]mountEntry, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("read the sandbox's mount table: %w", err)
	}
	return parseMountInfo(b)
}

// MountPoints lists this process's mount points in the order they were
// made (a container's spelling of a read-only mount needs those below
// it: see agentbox.withSubmounts).
func MountPoints() ([]string, error) {
	ms, err := readMountInfo()
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Point
	}
	return out, err
}

func parseMountInfo(b []byte) ([]mountEntry, error) {
	var out []mountEntry
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			return nil, fmt.Errorf("mount table line %q", sc.Text())
		}
		id, err1 := strconv.Atoi(f[0])
		parent, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("mount table line %q", sc.Text())
		}
		out = append(out, mountEntry{ID: id, Parent: parent, Point: unescapeMount(f[4])})
	}
	return out, sc.Err()
}

// unescapeMount undoes the kernel's octal escapes (\040 for a space,
// \011, \012, \134) in a mount point.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// childMounts are the mount points of the mounts attached directly to
// the one in sight at dir (the last made there), in the order they were
// made; those below them come along with them.
func childMounts(ms []mountEntry, dir string) []string {
	top := -1
	for _, m := range ms {
		if m.Point == dir {
			top = m.ID
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range ms {
		if top >= 0 && m.Parent == top && m.Point != dir && !seen[m.Point] {
			seen[m.Point] = true
			out = append(out, m.Point)
		}
	}
	return out
}

// within reports whether p is root or below it.
func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}
