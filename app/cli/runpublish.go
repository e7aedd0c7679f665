package cli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"

	"github.com/gatehouse-dev/gatehouse/sandbox/agentbox"
)

// published are the host's listeners for the ports the person published
// with `gatehouse run --publish PORT`: a server the agent starts on that
// port inside its sandbox (a dev server) answers there, on this
// machine's loopback alone.
type published struct {
	ports []int
	lns   map[int][]net.Listener
}

// publishEnv names the ports to publish when --publish is not given, as
// for an agent started by typing its name (a launcher): GATEHOUSE_PUBLISH=5173
// claude, or "5173,3000".
const publishEnv = "GATEHOUSE_PUBLISH"

// publishedFromEnv reads publishEnv's value: ports separated by commas or
// spaces; "" for none.
func publishedFromEnv(v string) ([]int, error) {
	var ports []int
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
		p, err := strconv.Atoi(f)
		if err != nil || p <= 0 || p > 65535 {
			return nil, userErrorf(err, "%s=%q: %q is not a port; give ports such as 5173,3000, so nothing was started", publishEnv, v, f)
		}
		ports = append(ports, p)
	}
	return ports, nil
}

// publish listens on 127.0.0.1 (and ::1, where there is one) at each
// port; onLandlock, nowhere (see announce).
func publish(ports []int, onLandlock bool) (*published, error) {
	p := &published{ports: ports, lns: map[int][]net.Listener{}}
	if onLandlock {
		return p, nil
	}
	for _, port := range ports {
		ln, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			p.close()
			if errors.Is(err, syscall.EADDRINUSE) {
				return nil, userErrorf(err, "port %d is in use on this machine, so it cannot be published and nothing was started; stop what uses it, or publish another port", port)
			}
			return nil, userErrorf(err, "port %d cannot be published on this machine (%v), so nothing was started", port, err)
		}
		p.lns[port] = append(p.lns[port], ln)
		// A browser may try ::1 first for localhost.
		if ln6, err := net.Listen("tcp6", net.JoinHostPort("::1", strconv.Itoa(port))); err == nil {
			p.lns[port] = append(p.lns[port], ln6)
		}
	}
	return p, nil
}

// announce says where each port is, once the run's backend is known.
// Under Landlock the agent's servers listen on this machine's loopback
// themselves: the listeners here would take their ports, so they go.
func (p *published) announce(onLandlock bool, stderr io.Writer) {
	if onLandlock {
		p.close()
		p.lns = nil
	}
	for _, port := range p.ports {
		if onLandlock {
			fmt.Fprintf(stderr, "gatehouse: under Landlock the agent's servers listen on this machine's loopback: a server on port %d is at http://127.0.0.1:%d\n", port, port)
		} else {
			fmt.Fprintf(stderr, "gatehouse: port %d of the run is published at http://127.0.0.1:%d\n", port, port)
		}
	}
}

// checkPorts refuses a --publish that names no port, before anything
// starts.
func checkPorts(ports []int) error {
	for _, port := range ports {
		if port < 1 || port > 65535 {
			return userErrorf(nil, "--publish %d is not a port (1 to 65535), so nothing was started", port)
		}
	}
	return nil
}

// serve forwards each connection to its port inside box's sandbox.
func (p *published) serve(box *agentbox.Box) {
	for port, lns := range p.lns {
		for _, ln := range lns {
			go agentbox.Forward(ln, func() (net.Conn, error) { return box.DialInside(port) }, nil)
		}
	}
}

func (p *published) close() {
	if p == nil {
		return
	}
	for _, lns := range p.lns {
		for _, ln := range lns {
			ln.Close()
		}
	}
}
