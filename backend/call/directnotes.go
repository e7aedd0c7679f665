package call

import "github.com/gatehouse-dev/gatehouse/sandbox"

// A command reaches the network only through Gatehouse's proxy, which
// looks names up itself for the domains the person approves. A program
// that connects by itself (ssh, git over ssh, nc, dig, a client that
// ignores the proxy variables) finds no resolver and no route: "Could not
// resolve host", "Temporary failure in name resolution". An agent then
// takes the network for down, and may try to repair it. The note says it
// was Gatehouse's boundary.

// directFailures are what programs print when a name cannot be looked
// up or no route leads anywhere.
var directFailures = []string{
	"temporary failure in name resolution", "could not resolve host", "could not resolve hostname",
	"name or service not known", "eai_again", "no address associated with hostname",
	"failed to lookup address information", "nodename nor servname", "no such host",
	"network is unreachable", "network unreachable",
}

// directNote is the note for a command whose output shows it tried the
// network by itself, "" when it does not.
func directNote(mode sandbox.NetworkMode, out *commandOutput) string {
	if mode == sandbox.NetHost || !out.has(directFailures) {
		return ""
	}
	if mode == sandbox.NetNone {
		return "Gatehouse's sandbox gives commands no network at all here, so the failure to reach it is the sandbox's, not the network's; if the task needs the network, ask the person."
	}
	return "Gatehouse's sandbox gives commands no network but its proxy, which HTTP_PROXY and HTTPS_PROXY point at and which looks names up itself for the domains the person approves: a program that connects by itself (ssh, git over ssh, nc, dig, a client that ignores the proxy variables) finds no network at all, so this failure is the sandbox's, not the network's. Use the tool's HTTPS way through the proxy where it has one, or ask the person to run that step."
}
