package agentconn

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// hasInput reports whether r may hold input for the command: the agents
// give a shell command /dev/null unless they made a terminal for it
// (Codex's tty sessions, Gemini CLI's interactive shell), where the
// model or the person types. A terminal this process is not in the
// foreground of is left alone: reading it would stop this process.
func hasInput(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return r != nil
	}
	fd := int(f.Fd())
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false // closed
	}
	if st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return true // a pipe or a file, as a shell would give the command
	}
	var null unix.Stat_t
	if unix.Stat(os.DevNull, &null) == nil && null.Rdev == st.Rdev {
		return false
	}
	if pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil && pg != unix.Getpgrp() {
		return false
	}
	return true
}

// inputChunk is the most one read of the agent's stdin passes on at once.
const inputChunk = 32 << 10

// Feed posts what r gives, as it comes, as the input of the command
// running under key (ExecFrame.Input), until r ends (the command reads
// its end) or the daemon stops taking it (the command ended).
func (c *Conn) Feed(ctx context.Context, key string, r io.Reader) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	// Chunked: the body is as long as the typing.
	head := appendHead(nil, hookwire.ExecInputPath, c.addr, c.token,
		hookwire.InputHeader+": "+key+"\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n")
	if _, err := conn.Write(head); err != nil {
		return err
	}
	buf := make([]byte, inputChunk)
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			chunk := fmt.Appendf(make([]byte, 0, n+16), "%x\r\n", n)
			chunk = append(append(chunk, buf[:n]...), "\r\n"...)
			if _, err := conn.Write(chunk); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return rerr
		}
	}
	if _, err := io.WriteString(conn, "0\r\n\r\n"); err != nil {
		return err
	}
	a, err := readHead(bufio.NewReader(conn))
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, a.body)
	return nil
}
