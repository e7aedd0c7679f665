package container

import (
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// sessionMounts shows the session's toolchains read-only and its cache
// and linked git dirs read-write, each at its host path, and its
// temporary directory as /tmp.
func sessionMounts(ss sandbox.SessionSpec) []string {
	var a []string
	for _, r := range ss.ReadOnly {
		a = append(a, "--mount", bindMount(r, r, "readonly"))
	}
	for _, g := range ss.GitDirs {
		a = append(a, "--mount", bindMount(g, g))
	}
	if ss.Cache != "" {
		a = append(a, "--mount", bindMount(ss.Cache, ss.Cache))
	}
	if ss.Tmp != "" {
		// The session's, over the container's own: a confined agent's
		// /tmp is the same directory.
		a = append(a, "--mount", bindMount(ss.Tmp, "/tmp"))
	}
	return a
}

// bindMount is a --mount value that shows src at dst, with opts
// ("readonly") after.
func bindMount(src, dst string, opts ...string) string {
	return sandbox.ContainerMount(append([]string{"type=bind", "source=" + src, "target=" + dst}, opts...)...)
}

// emptyDirMount is a --mount value that covers dst with an empty
// directory nobody may enter.
func emptyDirMount(dst string) string {
	return sandbox.ContainerMount("type=tmpfs", "target="+dst, "tmpfs-size=1k", "tmpfs-mode=0")
}
