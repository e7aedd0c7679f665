package notify

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// listeners are the sockets a run listens on, by inode: a connect to a
// local address reaches one of them only while it still holds the port.
// A port the run let go may have been taken by a host's server since,
// which stays out of the run's reach as any other.
type listeners struct {
	mu     sync.Mutex
	inodes map[uint64]bool
}

// maxListeners bounds what a run's supervisor remembers; past it, those
// no longer listening are forgotten.
const maxListeners = 1024

func (l *listeners) add(fd int) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inodes == nil {
		l.inodes = map[uint64]bool{}
	}
	if len(l.inodes) >= maxListeners {
		live := map[uint64]bool{}
		listening(0, func(inode uint64) { live[inode] = true })
		for i := range l.inodes {
			if !live[i] {
				delete(l.inodes, i)
			}
		}
	}
	l.inodes[st.Ino] = true
}

// hold reports whether port is the run's: some socket listens there, and
// every one that does is the run's own.
func (l *listeners) hold(port int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.inodes) == 0 {
		return false
	}
	found, other := l.on(port)
	return found && !other
}

// onlyOwn reports whether no socket but the run's own listens on port.
func (l *listeners) onlyOwn(port int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, other := l.on(port)
	return !other
}

// on reports whether the run's own sockets, and others, listen on port;
// l.mu is held.
func (l *listeners) on(port int) (own, other bool) {
	listening(port, func(inode uint64) {
		if l.inodes[inode] {
			own = true
		} else {
			other = true
		}
	})
	return own, other
}

// listening calls f with the inode of each TCP socket listening on port
// (every port for 0) in this network namespace, IPv4 and IPv6: from the
// kernel's socket diagnostics, else from /proc/net/tcp.
func listening(port int, f func(inode uint64)) {
	if listenersOn(port, f) == nil {
		return
	}
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		listeningIn(table, port, f)
	}
}

// listeningIn is listening from one table of /proc/net.
func listeningIn(table string, port int, f func(inode uint64)) {
	b, err := os.ReadFile(table)
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Scan() // the header
	for sc.Scan() {
		if p, inode, ok := listenEntry(sc.Bytes()); ok && (port == 0 || p == port) {
			f(inode)
		}
	}
}

// listenEntry reads one line of /proc/net/tcp: its local port and inode
// when its state is LISTEN (0A).
func listenEntry(line []byte) (port int, inode uint64, ok bool) {
	fields := bytes.Fields(line)
	if len(fields) < 10 || string(fields[3]) != "0A" {
		return 0, 0, false
	}
	local := fields[1]
	i := bytes.LastIndexByte(local, ':')
	if i < 0 {
		return 0, 0, false
	}
	p, err := strconv.ParseUint(string(local[i+1:]), 16, 16)
	if err != nil {
		return 0, 0, false
	}
	n, err := strconv.ParseUint(string(fields[9]), 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return int(p), n, true
}

// localPort is sa's port when sa names this machine's loopback (or the
// unspecified address, which connect(2) takes for it): where a listener
// of the run's can be.
func localPort(sa []byte) (int, bool) {
	port, ok := inetPort(sa)
	if !ok || port == 0 {
		return 0, false
	}
	var ip []byte
	if binary.LittleEndian.Uint16(sa) == unix.AF_INET {
		ip = sa[4:8]
	} else {
		ip = sa[8:24]
		if bytes.Equal(ip[:12], []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}) {
			ip = ip[12:] // an IPv4 address mapped
		} else if bytes.Equal(ip[:15], make([]byte, 15)) && (ip[15] == 0 || ip[15] == 1) {
			return port, true // :: or ::1
		} else {
			return 0, false
		}
	}
	if ip[0] == 127 || bytes.Equal(ip, []byte{0, 0, 0, 0}) {
		return port, true
	}
	return 0, false
}
