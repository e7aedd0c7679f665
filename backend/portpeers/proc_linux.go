package portpeers

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Find lists the established connections to port on this machine whose
// far end is port (connections the daemon accepted), and the process
// holding each one's other end. Processes of other users show with PID 0:
// their file descriptors are not ours to read.
func Find(port int) ([]Peer, error) {
	conns := map[string]string{} // socket inode → local end of the client
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if err := readTable(f, port, conns); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	if len(conns) == 0 {
		return nil, nil
	}
	owners := socketOwners(conns)
	var out []Peer
	for inode, from := range conns {
		p := Peer{From: from}
		if pid, ok := owners[inode]; ok {
			p.PID = pid
			p.Command = comm(pid)
			p.Exe, _ = os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe"))
		}
		out = append(out, p)
	}
	return out, nil
}

// readTable adds the established connections whose remote port is port.
// A row: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode.
func readTable(path string, port int, into map[string]string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Scan() // header
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 10 || fields[3] != "01" { // 01: ESTABLISHED
			continue
		}
		_, rport, err := parseAddr(fields[2])
		if err != nil || rport != port {
			continue
		}
		lip, lport, err := parseAddr(fields[1])
		if err != nil {
			continue
		}
		into[fields[9]] = net.JoinHostPort(lip.String(), strconv.Itoa(lport))
	}
	return s.Err()
}

// parseAddr reads /proc/net/tcp's "0100007F:1F90": the address in the
// kernel's byte order, 4-byte words little-endian, and the port in hex.
func parseAddr(s string) (net.IP, int, error) {
	h, p, ok := strings.Cut(s, ":")
	if !ok {
		return nil, 0, fmt.Errorf("bad address %q", s)
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return nil, 0, err
	}
	b, err := hex.DecodeString(h)
	if err != nil || (len(b) != 4 && len(b) != 16) {
		return nil, 0, fmt.Errorf("bad address %q", s)
	}
	for i := 0; i < len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return net.IP(b), int(port), nil
}

// socketOwners maps the wanted socket inodes to the pid holding them, by
// reading every process's fd links we may read.
func socketOwners(want map[string]string) map[string]int {
	out := map[string]int{}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		dir := filepath.Join("/proc", p.Name(), "fd")
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(dir, fd.Name()))
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			inode := strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")
			if _, ok := want[inode]; ok {
				out[inode] = pid
			}
		}
		if len(out) == len(want) {
			break
		}
	}
	return out
}

func comm(pid int) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
