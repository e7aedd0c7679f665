package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"
)

// printDoctorHostPorts is doctor's "services on this machine" section:
// each port of [network] host_ports, and whether a service answers there
// now, so a person who listed a database's port sees whether commands
// will find it.
func printDoctorHostPorts(ctx context.Context, w io.Writer, ports []int, networkOn bool) {
	fmt.Fprintln(w, "SERVICES ON THIS MACHINE")
	switch {
	case len(ports) == 0:
		fmt.Fprintln(w, "None: commands reach no service of this machine ([network] host_ports lists none).")
		return
	case !networkOn:
		fmt.Fprintln(w, "[network] enabled = false: commands reach none of host_ports either.")
		return
	}
	for _, p := range ports {
		if at := answersAt(ctx, p); at != "" {
			fmt.Fprintf(w, "port %d: a service answers at %s; commands reach it through Gatehouse.\n", p, at)
		} else {
			fmt.Fprintf(w, "port %d: nothing answers on 127.0.0.1 or ::1 now; a command's connection fails until the service runs.\n", p)
		}
	}
}

// answersAt is where a service accepts a connection to port on the
// loopback ("" for nowhere), as the daemon would dial it.
func answersAt(ctx context.Context, port int) string {
	d := net.Dialer{Timeout: time.Second}
	for _, a := range []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()} {
		addr := netip.AddrPortFrom(a, uint16(port)).String()
		if c, err := d.DialContext(ctx, "tcp", addr); err == nil {
			c.Close()
			return addr
		}
	}
	return ""
}
