package bwrap

import (
	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

// cacheMounts binds the session's writable cache. The cache lives in the
// data dir, which is hidden under an empty tmpfs: its bind must come
// after that tmpfs (or it would be covered) and before the tmpfs is made
// read-only (or its mount point could not be created). hidden is the
// hidden directory just mounted, or "" after all of them.
func cacheMounts(p *sandbox.Prepared, hidden []string, current string) []initproc.LayoutMount {
	if p.Cache == "" {
		return nil
	}
	in := ""
	for _, h := range hidden {
		if sandbox.Within(p.Cache, h) {
			in = h // the last one mounted over it
		}
	}
	if in != current {
		return nil
	}
	return []initproc.LayoutMount{{Kind: initproc.MountBind, Src: p.Cache, Dst: p.Cache}}
}
