package confined

import (
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/randid"
)

// listeners are a run's three unix listeners, in a directory of their
// own under Deps.Dir: the agent's routes, the proxy's stream, and the
// proxy's handed connections.
type listeners struct {
	dir                string
	agent, proxy, hand net.Listener
}

// maxSocketPath is the longest path a Unix socket binds to: sun_path
// holds 108 bytes on Linux, the last a NUL (104 on macOS, which has no
// confined runs). Longer, bind fails with a bare "invalid argument".
const maxSocketPath = 107

// makeListeners makes a directory under dir and listens in it.
func makeListeners(dir string) (*listeners, error) {
	l := &listeners{dir: filepath.Join(dir, randid.New("", 8))}
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return nil, fmt.Errorf("make the run's directory: %w", err)
	}
	for _, s := range []struct {
		ln        *net.Listener
		net, file string
		what      string
	}{
		{&l.agent, "unix", "agent.sock", "the run's agent"},
		{&l.proxy, "unix", "proxy.sock", "the run's proxy"},
		{&l.hand, "unixpacket", "hand.sock", "the run's proxy connections"},
	} {
		p := filepath.Join(l.dir, s.file)
		if len(p) > maxSocketPath {
			l.close()
			return nil, fmt.Errorf("the run's sockets would be at %s, %d bytes, and a Unix socket's path may have no more than %d: give the data directory a shorter path (--data)", p, len(p), maxSocketPath)
		}
		ln, err := net.Listen(s.net, p)
		if err != nil {
			l.close()
			return nil, fmt.Errorf("listen for %s: %w", s.what, err)
		}
		*s.ln = ln
	}
	return l, nil
}

// all are the listeners made.
func (l *listeners) all() []net.Listener {
	var out []net.Listener
	for _, ln := range []net.Listener{l.agent, l.proxy, l.hand} {
		if ln != nil {
			out = append(out, ln)
		}
	}
	return out
}

// close closes the listeners and removes their directory.
func (l *listeners) close() {
	for _, ln := range l.all() {
		_ = ln.Close()
	}
	_ = os.RemoveAll(l.dir)
}

// takeListeners is the spare listeners made after the last run started,
// or new ones; either way a spare for the next run is then made. Making
// a directory and three sockets costs milliseconds on a busy disk, which
// a run then does not wait for. Nothing answers on a spare's sockets
// until its run serves them, and only this user reaches them: they are
// in the data dir, which no sandbox is shown.
func (g *Runs) takeListeners() (*listeners, error) {
	g.mu.Lock()
	l := g.spare
	g.spare = nil
	g.mu.Unlock()
	defer func() { go g.makeSpare() }()
	if l != nil {
		return l, nil
	}
	return makeListeners(g.deps.Dir)
}

// makeSpare makes the next run's listeners, unless there is a spare
// already or the runs are closed.
func (g *Runs) makeSpare() {
	l, err := makeListeners(g.deps.Dir)
	if err != nil {
		g.deps.Logger.Debug("make a confined run's listeners ahead", "err", err)
		return
	}
	g.mu.Lock()
	keep := g.spare == nil && !g.closed
	if keep {
		g.spare = l
	}
	g.mu.Unlock()
	if !keep {
		l.close()
	}
}
