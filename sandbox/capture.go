package sandbox

import (
	"fmt"
	"io"
	"sync"
	"syscall"
)

// Capture keeps a bounded copy of one output stream: the first part and
// the last part up to a cap, counting (not storing) what falls between,
// so a 100 GiB stream costs only the cap in memory. It is safe for one
// writer and concurrent readers of Bytes after the writer is done.
type Capture struct {
	mu    sync.Mutex
	head  []byte
	tail  []byte // ring buffer of the most recent bytes
	tpos  int    // next write position in tail once it is full
	tfull bool
	hcap  int
	tcap  int
	total int64
	live  io.Writer
}

// NewCapture keeps at most limit bytes (CaptureTail of them from the end
// of the stream). live, if non-nil, receives every byte as it arrives,
// and decides itself how much of a long stream it passes on.
func NewCapture(limit int64, live io.Writer) *Capture {
	if limit <= 0 {
		limit = DefaultOutputBytes
	}
	tc := CaptureTail(limit)
	return &Capture{hcap: int(limit) - tc, tcap: tc, live: live}
}

// CaptureTail is how many of a capture's limit bytes come from the end
// of a stream longer than the limit.
func CaptureTail(limit int64) int {
	if limit <= 0 {
		limit = DefaultOutputBytes
	}
	return int(limit / 4)
}

// Write never fails, so a chatty process is never blocked by the cap.
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if c.live != nil {
		_, _ = c.live.Write(p)
	}
	if room := c.hcap - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || c.tcap == 0 {
		return n, nil
	}
	if len(p) >= c.tcap {
		// Only the last tcap bytes can survive; take them directly.
		if c.tail == nil {
			c.tail = make([]byte, c.tcap)
		}
		copy(c.tail, p[len(p)-c.tcap:])
		c.tpos, c.tfull = 0, true
		return n, nil
	}
	if !c.tfull {
		if c.tail == nil {
			c.tail = make([]byte, 0, c.tcap)
		}
		room := c.tcap - len(c.tail)
		if len(p) <= room {
			c.tail = append(c.tail, p...)
			if len(c.tail) == c.tcap {
				c.tfull, c.tpos = true, 0
			}
			return n, nil
		}
		c.tail = append(c.tail, p[:room]...)
		p = p[room:]
		c.tfull, c.tpos = true, 0
	}
	for len(p) > 0 {
		k := copy(c.tail[c.tpos:], p)
		p = p[k:]
		c.tpos = (c.tpos + k) % c.tcap
	}
	return n, nil
}

// ReadFrom copies r with a pipe-sized buffer; io.Copy uses it for the
// run's pipes, which is what makes the capture path fast.
func (c *Capture) ReadFrom(r io.Reader) (int64, error) {
	buf := copyBuffers.get()
	defer copyBuffers.put(buf)
	var total int64
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = c.Write(buf[:n])
			total += int64(n)
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// ReadAvailable copies what fd holds now, without waiting for more: a
// non-blocking pipe whose writers may not all be gone. It stops at
// EAGAIN, EOF or an error.
func (c *Capture) ReadAvailable(fd int) {
	buf := copyBuffers.get()
	defer copyBuffers.put(buf)
	for {
		n, err := syscall.Read(fd, buf)
		if n <= 0 || err != nil {
			return
		}
		_, _ = c.Write(buf[:n])
	}
}

// copyBuffers are kept between runs: every run copies two pipes, and a
// fresh buffer per copy was most of a short command's allocations in
// the daemon (and the page faults that clear them).
var copyBuffers = bufferList{free: make(chan []byte, 8)}

// copyBufferBytes is a default pipe's capacity: a read never returns more.
const copyBufferBytes = 64 << 10

// bufferList is a bounded free list; unlike a sync.Pool it is not
// emptied by each garbage collection, which a busy daemon runs often.
type bufferList struct{ free chan []byte }

func (l bufferList) get() []byte {
	select {
	case b := <-l.free:
		return b
	default:
		return make([]byte, copyBufferBytes)
	}
}

func (l bufferList) put(b []byte) {
	select {
	case l.free <- b:
	default:
	}
}

// Total is the number of bytes the stream produced.
func (c *Capture) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Truncated reports whether bytes were dropped.
func (c *Capture) Truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total > int64(len(c.head)+len(c.tail))
}

// Bytes returns the kept output; if anything was dropped, a one-line
// marker saying how much sits between the head and the tail.
func (c *Capture) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	var tail []byte
	if c.tfull {
		tail = append(append([]byte{}, c.tail[c.tpos:]...), c.tail[:c.tpos]...)
	} else {
		tail = c.tail
	}
	kept := int64(len(c.head) + len(tail))
	out := make([]byte, 0, kept+80)
	out = append(out, c.head...)
	if dropped := c.total - kept; dropped > 0 {
		out = append(out, TruncationMarker(dropped)...)
	}
	return append(out, tail...)
}

// TruncationMarker is the line inserted where output was dropped.
func TruncationMarker(dropped int64) string {
	return fmt.Sprintf("\n[gatehouse: output truncated, %d bytes omitted]\n", dropped)
}
