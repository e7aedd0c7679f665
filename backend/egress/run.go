package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/textproto"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/backend/netguard"
)

// Defaults for Options left at zero.
const (
	DefaultDialTimeout = 15 * time.Second
	// headTimeout bounds reading a request's head, and the ClientHello.
	headTimeout = 30 * time.Second
	// maxHeadBytes bounds a request's head.
	maxHeadBytes = 64 << 10
)

// Options configure a Proxy.
type Options struct {
	// Resolver looks names up; net.DefaultResolver when nil.
	Resolver netguard.Resolver
	// TestHosts is TEST-ONLY: it maps made-up names ("pkgs.example.test",
	// or "pkgs.example.test:443") to test servers ("127.0.0.1", or
	// "127.0.0.1:40123"), which then pass the SSRF checks. Empty unless
	// the config's test-only setting fills it.
	TestHosts   map[string]string
	DialTimeout time.Duration
	Logger      *slog.Logger
	// HostPorts are ports of the machine's loopback every run may reach
	// (ServeHost): services the person listed in the config.
	HostPorts []int
}

// Proxy is the daemon's egress proxy; each run gets its own Run.
type Proxy struct {
	opts  Options
	tests testHosts
	log   *slog.Logger
	// own are loopback ports no host port reaches (Reserve).
	own sync.Map // int → struct{}
}

// New checks o and returns a Proxy.
func New(o Options) (*Proxy, error) {
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	th, err := parseTestHosts(o.TestHosts)
	if err != nil {
		return nil, err
	}
	if len(o.TestHosts) > 0 {
		o.Logger.Warn("egress proxy: test hosts are set; names in them reach loopback and private addresses", "count", len(o.TestHosts))
	}
	return &Proxy{opts: o, tests: th, log: o.Logger}, nil
}

// RunInfo is who a run is and who decides for it.
type RunInfo struct {
	Session string
	Call    string
	Argv    []string
	Decider Decider
	// Recorder, if set, gets a record of every connection.
	Recorder Recorder
	// Labelled: each connection begins with one line, "process=NAME",
	// naming the process that made it. Only a forwarder Gatehouse runs
	// outside the sandbox (a confined agent's) writes to such a listener,
	// or hands connections over with the name (ServeHanded).
	Labelled bool
}

// Run is the proxy of one run: it implements sandbox.Proxy.
type Run struct {
	p    *Proxy
	info RunInfo
	// ctx ends with the call, or with Close: a question still waiting for
	// the person when the run ends has no one left to answer.
	ctx    context.Context
	cancel context.CancelCauseFunc
	pins   pins

	mu      sync.Mutex
	answers map[string]*answer // "domain:port"
	conns   map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup
}

// answer is a Decider's verdict for one domain and port, shared by the
// connections that wait for it.
type answer struct {
	done chan struct{}
	a    Answer
}

// Open starts a run's proxy. ctx is the call's: when it ends (the call
// is cancelled or the session killed) pending questions are denied, as
// they are when the run's proxy is closed.
func (p *Proxy) Open(ctx context.Context, info RunInfo) *Run {
	ctx, cancel := context.WithCancelCause(ctx)
	return &Run{p: p, info: info, ctx: ctx, cancel: cancel, pins: pins{m: map[string][]netip.Addr{}},
		answers: map[string]*answer{}, conns: map[net.Conn]struct{}{}}
}

// Serve implements sandbox.Proxy.
func (r *Run) Serve(ln net.Listener) { r.accept(ln, r.handle) }

// accept hands each connection on ln to handle, tracked so Close ends it,
// until ln is closed.
func (r *Run) accept(ln net.Listener, handle func(net.Conn)) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if !r.track(c) {
			c.Close()
			continue
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer r.untrack(c)
			handle(c)
		}()
	}
}

// Close ends the run's connections, withdraws the questions they still
// wait on (the run that would use the answer is over) and waits for their
// records.
func (r *Run) Close() {
	r.mu.Lock()
	r.closed = true
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.cancel(errRunEnded{})
	r.wg.Wait()
}

// errRunEnded ends the questions of a run that is over. Its reason is what
// the person's card says (approval.Withdrawal).
type errRunEnded struct{}

func (errRunEnded) Error() string { return "the run's proxy closed" }

func (errRunEnded) WithdrawalReason() string {
	return "the command ended before anyone answered"
}

func (r *Run) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.conns[c] = struct{}{}
	return true
}

func (r *Run) untrack(c net.Conn) {
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
	c.Close()
}

// ServeHanded serves a labelled run's connections handed over ln, a
// unixpacket listener only the run's forwarder reaches: each connection
// to it carries one message, "process=NAME" with the descriptor of the
// connection that process made, which the proxy then serves itself (no
// forwarder copies its bytes); "host=PORT process=NAME" hands one the
// process made to a host port (ServeHost).
func (r *Run) ServeHanded(ln net.Listener) {
	for {
		u, err := ln.Accept()
		if err != nil {
			return
		}
		go r.takeHanded(u)
	}
}

// takeHanded receives one handed connection from u and serves it.
func (r *Run) takeHanded(u net.Conn) {
	defer u.Close()
	uc, ok := u.(*net.UnixConn)
	if !ok {
		return
	}
	_ = uc.SetReadDeadline(time.Now().Add(headTimeout))
	buf, oob := make([]byte, 1024), make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
	if err != nil {
		return
	}
	var fds []int
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if got, err := unix.ParseUnixRights(&m); err == nil {
				fds = append(fds, got...)
			}
		}
	}
	if len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return
	}
	f := os.NewFile(uintptr(fds[0]), "handed")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return
	}
	host, process, ok := parseHandedLabel(string(buf[:n]))
	if !ok || !r.track(c) {
		c.Close()
		return
	}
	r.wg.Add(1)
	defer r.wg.Done()
	defer r.untrack(c)
	if host > 0 {
		r.host(c, host, process)
		return
	}
	r.serve(c, false, process)
}

// parseHandedLabel reads a handed connection's label: "process=NAME" for
// the proxy, "host=PORT process=NAME" for a host port.
func parseHandedLabel(label string) (host int, process string, ok bool) {
	if rest, isHost := strings.CutPrefix(label, "host="); isHost {
		p, after, found := strings.Cut(rest, " ")
		port, err := strconv.Atoi(p)
		if !found || err != nil || port <= 0 || port > 65535 {
			return 0, "", false
		}
		host, label = port, after
	}
	process, ok = strings.CutPrefix(label, "process=")
	if !ok {
		return 0, "", false
	}
	return host, process, true
}

// handle serves one connection from the run: one CONNECT tunnel, or one
// plain HTTP request (answered with Connection: close).
func (r *Run) handle(c net.Conn) { r.serve(c, r.info.Labelled, "") }

// serve is handle, the connection's first line naming its process when
// readLabel is set, else process naming it (when the run is labelled).
func (r *Run) serve(c net.Conn, readLabel bool, process string) {
	start := time.Now()
	rec := Connection{Session: r.info.Session, Call: r.info.Call, Process: process}
	defer func() {
		rec.Duration = time.Since(start)
		r.record(rec)
	}()
	lim := &headLimit{r: c, n: maxHeadBytes}
	br := bufio.NewReaderSize(lim, 32<<10)
	_ = c.SetReadDeadline(time.Now().Add(headTimeout))
	if readLabel {
		line, err := br.ReadString('\n')
		p, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "process=")
		if err != nil || !ok {
			rec.Refused = "the forwarder did not name the connection's process"
			return
		}
		rec.Process = p
	}
	head, err := readHead(br)
	if err != nil {
		rf := refuse(400, "Gatehouse's proxy could not read the request: %v", err)
		rec.Refused = rf.msg
		writeRefusal(c, rf)
		return
	}
	lim.n = -1
	rec.Method = head.method
	var rf *refusal
	if head.method == "CONNECT" {
		rf = r.connect(c, br, head, &rec)
	} else {
		rf = r.forward(c, br, head, &rec)
	}
	if rf != nil {
		rec.Refused = rf.msg
		r.p.log.Info("egress: refused", "session", rec.Session, "call", rec.Call, "domain", rec.Domain, "port", rec.Port, "reason", rf.msg, "err", rf.err)
	}
}

func (r *Run) record(c Connection) {
	if r.info.Recorder != nil {
		r.info.Recorder.Connection(context.WithoutCancel(r.ctx), c)
	}
}

// head is a request line and its headers, and the raw bytes they came in.
type head struct {
	method, target, proto string
	header                textproto.MIMEHeader
	raw                   []byte
}

// readHead reads up to the blank line ending a request's head.
func readHead(br *bufio.Reader) (*head, error) {
	var raw []byte
	for {
		line, err := br.ReadSlice('\n')
		raw = append(raw, line...)
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			return nil, fmt.Errorf("the request ended early")
		}
		if len(raw) > maxHeadBytes {
			return nil, fmt.Errorf("the request head is larger than %d bytes", maxHeadBytes)
		}
		if string(line) == "\r\n" || string(line) == "\n" {
			break
		}
	}
	tp := textproto.NewReader(bufio.NewReader(strings.NewReader(string(raw))))
	first, err := tp.ReadLine()
	if err != nil {
		return nil, fmt.Errorf("no request line")
	}
	parts := strings.Fields(first)
	if len(parts) != 3 || !strings.HasPrefix(parts[2], "HTTP/1.") {
		return nil, fmt.Errorf("%q is not an HTTP/1 request line", first)
	}
	hdr, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, fmt.Errorf("bad headers: %v", err)
	}
	return &head{method: parts[0], target: parts[1], proto: parts[2], header: hdr, raw: raw}, nil
}

// headLimit caps what the head may read; n < 0 lifts the cap.
type headLimit struct {
	r io.Reader
	n int
}

func (h *headLimit) Read(p []byte) (int, error) {
	if h.n == 0 {
		return 0, fmt.Errorf("the request head is larger than %d bytes", maxHeadBytes)
	}
	if h.n > 0 && len(p) > h.n {
		p = p[:h.n]
	}
	n, err := h.r.Read(p)
	if h.n > 0 {
		h.n -= n
	}
	return n, err
}

// target is an admitted destination: a checked, approved and resolved
// name and port.
type target struct {
	name  string
	port  int
	addrs []netip.AddrPort
}

// admit runs the checks every connection passes, in the order that
// leaks least: the name's syntax (IP literals refused), the Decider (so
// an unapproved name is never resolved, and DNS carries nothing out),
// then resolution under the SSRF rules.
func (r *Run) admit(host string, port int, rec *Connection) (*target, *refusal) {
	lit, name, err := netguard.CheckHost(host)
	switch {
	case lit.IsValid():
		return nil, refuse(403, "Gatehouse's proxy connects to domain names only, and %s is an IP address; use the host's name so it can be approved", lit)
	case err != nil:
		var be *netguard.BlockedError
		if errors.As(err, &be) {
			return nil, refuse(403, "Gatehouse's proxy does not connect to %q: %s", host, be.Reason)
		}
		return nil, refuse(400, "Gatehouse's proxy does not connect to %q", host)
	}
	rec.Domain, rec.Port = name, port
	if a := r.decide(Question{Domain: name, Port: port, Process: rec.Process}); !a.Allow {
		reason := a.Reason
		if reason == "" {
			reason = "it was not approved"
		}
		return nil, refuse(403, "Gatehouse refused the connection to %s:%d: %s", name, port, reason)
	}
	addrs, err := r.p.resolve(r.ctx, &r.pins, name, port)
	if err != nil {
		var rf *refusal
		if errors.As(err, &rf) {
			return nil, rf
		}
		return nil, &refusal{status: 502, msg: "Gatehouse's proxy could not resolve " + name, err: err}
	}
	return &target{name: name, port: port, addrs: addrs}, nil
}

// decide asks the Decider once per domain and port for this run; other
// connections for the same pair wait for that answer.
func (r *Run) decide(q Question) Answer {
	name, port := q.Domain, q.Port
	key := name + ":" + strconv.Itoa(port)
	if q.Listed {
		key = "host " + key // never a domain's answer
	}
	r.mu.Lock()
	a, ok := r.answers[key]
	if !ok {
		a = &answer{done: make(chan struct{})}
		r.answers[key] = a
	}
	r.mu.Unlock()
	if ok {
		select {
		case <-a.done:
			return a.a
		case <-r.ctx.Done():
			return Answer{Reason: "the command's call ended"}
		}
	}
	defer close(a.done)
	if r.info.Decider == nil {
		a.a = Answer{Reason: "no one decides on network access here"}
		return a.a
	}
	q.Session, q.Call, q.Argv = r.info.Session, r.info.Call, r.info.Argv
	ans, err := r.info.Decider.Decide(r.ctx, q)
	switch {
	case err != nil && r.ctx.Err() != nil:
		ans = Answer{Reason: "the command's call ended"}
	case err != nil:
		r.p.log.Warn("egress: decider failed", "domain", name, "port", port, "err", err)
		ans = Answer{Reason: "Gatehouse could not ask for approval"}
	}
	a.a = ans
	return ans
}

// dial connects to the first of t's addresses that answers, checking each
// again just before connect.
func (r *Run) dial(t *target) (net.Conn, *refusal) {
	d := net.Dialer{Timeout: r.p.opts.DialTimeout, Control: netguard.DialControl(r.p.permit)}
	d.SetMultipathTCP(false)
	var firstErr error
	for _, ap := range t.addrs {
		c, err := d.DialContext(r.ctx, "tcp", ap.String())
		if err == nil {
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, &refusal{status: 502, msg: fmt.Sprintf("Gatehouse's proxy could not reach %s:%d", t.name, t.port), err: firstErr}
}

// pipe copies both ways until both sides are done, counting the bytes.
func pipe(client net.Conn, buffered []byte, server net.Conn, rec *Connection) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		n, _ := io.Copy(client, server)
		rec.BytesDown += n
		closeWrite(client)
	}()
	if len(buffered) > 0 {
		n, err := server.Write(buffered)
		rec.BytesUp += int64(n)
		if err != nil {
			server.Close()
		}
	}
	n, _ := io.Copy(server, client)
	rec.BytesUp += n
	closeWrite(server)
	wg.Wait()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	c.Close()
}
