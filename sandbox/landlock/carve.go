package landlock

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

// access is what a subtree gets.
type access int

const (
	denied access = iota
	readOnly
	readWrite
)

// carve grants want on the tree at dir except where special paths say
// otherwise. Landlock rules only add rights down a hierarchy and cannot
// take them away beneath, so a directory holding a special path gets
// only the right to list it, and each of its entries is granted on its
// own. Symlinked entries get nothing: a rule follows the link, so one
// pointing at / would open the host.
func carve(dir string, want access, special map[string]access, l *initproc.Landlock) {
	if !hasSpecialBelow(dir, special) {
		grant(dir, want, true, l)
		return
	}
	l.ListDirs = append(l.ListDirs, dir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		a, isSpecial := special[p]
		if !isSpecial {
			a = want
		}
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		if e.IsDir() && hasSpecialBelow(p, special) {
			carve(p, a, special, l)
			continue
		}
		grant(p, a, e.IsDir(), l)
	}
}

func hasSpecialBelow(dir string, special map[string]access) bool {
	for p := range special {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

func grant(p string, a access, isDir bool, l *initproc.Landlock) {
	switch {
	case a == readOnly && isDir:
		l.RODirs = append(l.RODirs, p)
	case a == readOnly:
		l.ROFiles = append(l.ROFiles, p)
	case a == readWrite && isDir:
		l.RWDirs = append(l.RWDirs, p)
	case a == readWrite:
		l.RWFiles = append(l.RWFiles, p)
	}
}
