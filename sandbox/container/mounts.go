package container

import (
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// sessionMounts shows the session's toolchains read-only and its cache
// and linked git dirs read-write, each at its host path, and its
// temporary directory as /tmp. Paths a mount
// option cannot carry (a comma or colon) are left out.
func sessionMounts(ss sandbox.SessionSpec) []string {
	var a []string
	bind := func(p, opts string) {
		if !strings.ContainsAny(p, ",:") {
			a = append(a, "--mount", "type=bind,source="+p+",target="+p+opts)
		}
	}
	for _, r := range ss.ReadOnly {
		bind(r, ",readonly")
	}
	for _, g := range ss.GitDirs {
		bind(g, "")
	}
	if ss.Cache != "" {
		bind(ss.Cache, "")
	}
	if ss.Tmp != "" && !strings.ContainsAny(ss.Tmp, ",:") {
		// The session's, over the container's own: a confined agent's
		// /tmp is the same directory (a comma in its path, which
		// podman's syntax cannot carry, leaves the container's).
		a = append(a, "--mount", "type=bind,source="+ss.Tmp+",target=/tmp")
	}
	return a
}
