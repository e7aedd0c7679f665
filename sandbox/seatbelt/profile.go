// Package seatbelt confines runs on macOS with sandbox-exec and a
// deny-by-default profile generated from the Spec. The profile text is
// covered by golden tests on every platform; running it needs macOS.
package seatbelt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// systemRead are readable in every profile (macOS system locations).
var systemRead = []string{
	"/usr", "/bin", "/sbin", "/System", "/Library/Apple", "/Library/Developer/CommandLineTools",
	"/private/etc", "/etc", "/opt/homebrew", "/usr/local", "/Applications/Xcode.app",
	"/private/var/db/timezone", "/dev",
}

// Profile renders the SBPL profile for p with the run's fresh home and
// temporary directories, what its workspaces protect and hide (ws, one
// per workspace, from protect.Scan), and the port of its proxy on
// loopback. Later rules win in SBPL, so denials for protected and hidden
// paths come after the grants they carve from; being path rules, they
// also cover paths that do not exist yet.
func Profile(p *sandbox.Prepared, home, tmp string, ws []protect.Workspace, proxyPort int) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w("(version 1)")
	w("(deny default)")
	w("(allow process-fork)")
	w("(allow process-exec)")
	w("(allow signal (target same-sandbox))")
	w("(allow sysctl-read)")
	w("(allow mach-lookup (global-name \"com.apple.system.opendirectoryd.libinfo\") (global-name \"com.apple.system.logger\"))")
	w("(allow ipc-posix-shm-read-data ipc-posix-shm-write-data)")
	w("(allow file-read-metadata)")
	subpaths(w, "allow file-read*", systemRead, p.ReadOnly)
	w("(allow file-write-data (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/tty\"))")
	subpaths(w, "allow file-read* file-write*", p.Workspaces, p.ReadWrite, []string{home, tmp})
	writeProtected(w, p.Workspaces, ws)
	subpaths(w, "deny file-read* file-write*", p.Hidden)
	if p.Cache != "" {
		// The build cache lives in the hidden data dir; later rules win.
		w("(allow file-read* file-write* (subpath %s))", quote(p.Cache))
	}
	switch p.Network.Mode {
	case sandbox.NetHost:
		w("(allow network*)")
		w("(allow mach-lookup (global-name \"com.apple.dnssd.service\"))")
	case sandbox.NetProxy:
		// Seatbelt names only localhost or any host: the run's proxy port
		// on loopback, TCP only.
		w("(allow network-outbound (remote tcp %s))", quote("localhost:"+strconv.Itoa(proxyPort)))
		// Host ports the person listed, straight to the service: Seatbelt
		// cannot lead a connect elsewhere, so these go unrecorded.
		if p.Network.Proxy != nil {
			for _, hp := range p.Network.Proxy.HostPorts() {
				w("(allow network-outbound (remote tcp %s))", quote("localhost:"+strconv.Itoa(hp)))
			}
		}
	}
	return b.String()
}

// subpaths writes one rule over every path of the lists, each a subpath,
// or nothing when the lists are empty.
func subpaths(w func(string, ...any), rule string, lists ...[]string) {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	if n == 0 {
		return
	}
	w("(%s", rule)
	for _, l := range lists {
		for _, p := range l {
			w("  (subpath %s)", quote(p))
		}
	}
	w(")")
}

// quote makes an SBPL string literal.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func regexQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteRune('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
