package call

import "github.com/gatehouse-dev/gatehouse/sandbox/protect"

// protectedPaths are the paths the sandbox keeps read-only or
// uncreatable in the workspaces, for policy.Session.Protected: file tools
// ask before writing them, as commands cannot. What git runs from a
// repository is read from the repository's config, so it is looked up
// for each call. A config git cannot parse leaves what could be found
// (the sandbox refuses commands until it is fixed; git runs no hook with
// it either).
func protectedPaths(workspaces []string) []string {
	var out []string
	for _, w := range workspaces {
		set, _ := protect.For(w)
		out = append(out, set.All()...)
	}
	return out
}
