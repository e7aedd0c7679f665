package agentbox

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
)

// Process names the process inside the sandbox that made c (a
// connection accepted on one of its listeners): "pid N: its command
// line", or "unknown" when it is gone or cannot be found. This process
// sees the sandbox's processes as their owner does, from outside, so
// nothing inside can change what it reads.
func (b *Box) Process(c net.Conn) string {
	ra, ok := c.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return "unknown"
	}
	pids, err := proctree.Descendants(b.PID())
	if err != nil || len(pids) == 0 {
		return "unknown"
	}
	inode := socketInode(pids[0], ra.Port)
	if inode == "" {
		return "unknown"
	}
	want := "socket:[" + inode + "]"
	for _, pid := range pids {
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name())); err == nil && l == want {
				return describe(pid)
			}
		}
	}
	return "unknown"
}

// socketInode is the inode of the TCP socket bound to local port port in
// the network namespace pid sees.
func socketInode(pid, port int) string {
	hexPort := fmt.Sprintf(":%04X", port)
	for _, table := range []string{"tcp", "tcp6"} {
		f, err := os.Open(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			// sl local rem st tx:rx tr:when retrnsmt uid timeout inode
			if len(fields) > 9 && strings.HasSuffix(fields[1], hexPort) {
				f.Close()
				return fields[9]
			}
		}
		f.Close()
	}
	return ""
}

// describe is "pid N: command line", bounded.
func describe(pid int) string {
	// One line: it heads the proxy connection.
	line := strings.Map(func(r rune) rune {
		if r < ' ' {
			return ' '
		}
		return r
	}, strings.Join(proctree.Cmdline(pid), " "))
	if len(line) > 200 {
		line = line[:200] + "…"
	}
	return "pid " + strconv.Itoa(pid) + ": " + line
}
