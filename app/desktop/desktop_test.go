package desktop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/tray"
	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

var update = flag.Bool("update", false, "rewrite build/appicon.png from AppIcon")

func TestHasDisplay(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, c := range []struct {
		goos string
		env  map[string]string
		want bool
	}{
		{"linux", nil, false},
		{"linux", map[string]string{"DISPLAY": ":0"}, true},
		{"linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, true},
		{"freebsd", map[string]string{"DISPLAY": ":1"}, true},
		{"darwin", nil, true},
	} {
		if got := HasDisplay(c.goos, env(c.env)); got != c.want {
			t.Errorf("HasDisplay(%s, %v) = %v", c.goos, c.env, got)
		}
	}
}

func TestUniqueIDPerDataDir(t *testing.T) {
	a, b := UniqueID("/home/me/.local/share/gatehouse"), UniqueID("/tmp/other")
	if a == b || a != UniqueID("/home/me/.local/share/gatehouse/") {
		t.Fatalf("ids: %s %s", a, b)
	}
	if !strings.HasPrefix(a, "dev.gatehouse.desktop.d") {
		t.Fatalf("id %s", a)
	}
	// The name Wails derives (and the pre-check asks for) is a valid bus name.
	name, path := singleInstanceBus(a)
	if !strings.HasPrefix(name, "org.wails_app_dev_gatehouse_desktop_d") || !strings.HasSuffix(name, ".SingleInstance") || strings.ContainsAny(name, "-") || len(name) > 255 {
		t.Fatalf("bus name %s", name)
	}
	if path != "/"+strings.ReplaceAll(strings.TrimSuffix(name, ".SingleInstance"), ".", "/")+"/SingleInstance" {
		t.Fatalf("path %s for %s", path, name)
	}
	if n, p := singleInstanceBus("a-b.c"); n != "org.wails_app_a_b_c.SingleInstance" || p != "/org/wails_app_a_b_c/SingleInstance" {
		t.Fatalf("wails formula: %s %s", n, p)
	}
}

func TestNotificationText(t *testing.T) {
	title, body := notificationText(approval.Request{Kind: "call", Tool: "run_command", Argv: []string{"sh", "-c", "echo  hi\nthere"}, Reason: "sh is an interpreter"}, 1)
	if title != "Gatehouse: an agent is waiting for you" || body != "sh -c echo hi there\nsh is an interpreter" {
		t.Fatalf("%q %q", title, body)
	}
	title, body = notificationText(approval.Request{Kind: "question", Question: "Which branch?"}, 3)
	if title != "Gatehouse: an agent has a question" || body != "Which branch?\n3 cards are waiting." {
		t.Fatalf("%q %q", title, body)
	}
	_, body = notificationText(approval.Request{Tool: "fetch_url", URL: "https://example.com/" + strings.Repeat("a", 400)}, 1)
	if n := len([]rune(body)); n > 160 || !strings.HasSuffix(body, "…") || !strings.HasPrefix(body, "fetch_url https://example.com/") {
		t.Fatalf("long body (%d): %q", n, body)
	}
	_, body = notificationText(approval.Request{Kind: "limit", Reason: "tool calls budget spent"}, 1)
	if body != "tool calls budget spent" {
		t.Fatalf("limit: %q", body)
	}
	_, body = notificationText(approval.Request{Tool: "write_file", Paths: []string{"a.go", "b.go"}}, 1)
	if body != "write_file a.go, b.go" {
		t.Fatalf("paths: %q", body)
	}
}

func TestEscapeMarkup(t *testing.T) {
	if got := escapeMarkup(`<b>rm -rf</b> & "x" 'y'`); got != "&lt;b&gt;rm -rf&lt;/b&gt; &amp; &quot;x&quot; &#39;y&#39;" {
		t.Fatal(got)
	}
}

type fakeNotifier struct {
	mu    sync.Mutex
	calls []string
	ch    chan struct{}
}

func (f *fakeNotifier) Notify(n Notification) (uint32, error) {
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf("%s|%s|%s|%v", n.Title, n.Body, n.Approval, n.Decidable))
	id := uint32(len(f.calls))
	f.mu.Unlock()
	f.ch <- struct{}{}
	return id, nil
}
func (f *fakeNotifier) Close() error { return nil }

// next waits for the next notification; a test fails with why when none
// comes.
func (f *fakeNotifier) next(t *testing.T, why string) {
	t.Helper()
	select {
	case <-f.ch:
	case <-time.After(3 * time.Second):
		t.Fatal(why)
	}
}

// sent is what has been notified so far.
func (f *fakeNotifier) sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// fakeAPI serves the two routes the watcher reads, with a timeline the test
// appends to.
type fakeAPI struct {
	mu      sync.Mutex
	events  []map[string]any
	added   chan struct{}
	pending int
	// polls counts the long-polls begun: after the first, the watcher
	// knows the newest event and announces only later ones.
	polls atomic.Int32
}

func (f *fakeAPI) add(kind string, payload map[string]any) {
	f.mu.Lock()
	f.events = append(f.events, map[string]any{"seq": len(f.events) + 1, "kind": kind, "payload": payload})
	if kind == "approval.requested" {
		f.pending++
	}
	f.mu.Unlock()
	select {
	case f.added <- struct{}{}:
	default:
	}
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	switch r.URL.Path {
	case "/api/v1/approvals":
		f.mu.Lock()
		list := make([]map[string]any, f.pending)
		f.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"approvals": list})
	case "/api/v1/events":
		if q.Get("order") == "desc" {
			f.mu.Lock()
			var out []map[string]any
			for i := len(f.events) - 1; i >= 0 && out == nil; i-- {
				if k := q.Get("kind"); k == "" || f.events[i]["kind"] == k {
					out = append(out, f.events[i])
				}
			}
			f.mu.Unlock()
			json.NewEncoder(w).Encode(map[string]any{"events": out, "next_after": 0})
			return
		}
		after := 0
		json.Unmarshal([]byte(q.Get("after")), &after)
		f.polls.Add(1)
		for {
			f.mu.Lock()
			var out []map[string]any
			for _, e := range f.events[min(after, len(f.events)):] {
				if e["kind"] == q.Get("kind") {
					out = append(out, e)
				}
			}
			next := len(f.events)
			f.mu.Unlock()
			if len(out) > 0 {
				json.NewEncoder(w).Encode(map[string]any{"events": out, "next_after": next})
				return
			}
			select {
			case <-f.added:
			case <-r.Context().Done():
				http.Error(w, "gone", 499)
				return
			case <-time.After(time.Second):
				json.NewEncoder(w).Encode(map[string]any{"events": []any{}, "next_after": after})
				return
			}
		}
	default:
		http.NotFound(w, r)
	}
}

func TestApprovalWatcherNotifiesOnlyWhenHidden(t *testing.T) {
	api := &fakeAPI{added: make(chan struct{}, 1)}
	api.add("approval.requested", map[string]any{"id": "old", "tool": "run_command", "argv": []string{"old"}})
	api.add("system.start", map[string]any{})
	var hidden atomic.Bool
	n := &fakeNotifier{ch: make(chan struct{}, 8)}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var cards atomic.Int32
	w := &approvalWatcher{api: api, hidden: hidden.Load, notify: n, onCard: func() { cards.Add(1) }, logger: slog.New(slog.NewTextHandler(io.Discard, nil)), wait: 1}
	done := make(chan struct{})
	go func() { w.run(ctx); close(done) }()

	waitfor.For(t, 3*time.Second, "the watcher's first long-poll", func() bool { return api.polls.Load() > 0 })
	api.add("approval.requested", map[string]any{"id": "a1", "tool": "run_command", "argv": []string{"make", "deploy"}})
	api.add("session.start", map[string]any{})
	select {
	case <-n.ch:
		t.Fatal("notified while the window was visible")
	case <-time.After(300 * time.Millisecond):
	}
	hidden.Store(true)
	api.add("approval.requested", map[string]any{"id": "a2", "kind": "call", "tool": "run_command", "argv": []string{"rm", "-rf", "build"}, "reason": "destructive"})
	n.next(t, "no notification while hidden")
	got := n.sent()
	if len(got) != 1 || got[0] != "Gatehouse: an agent is waiting for you|rm -rf build\ndestructive\n3 cards are waiting.|a2|true" {
		t.Fatalf("calls: %q", got)
	}
	if c := cards.Load(); c != 2 {
		t.Fatalf("onCard ran %d times, want 2 (a1 while visible, a2 while hidden)", c)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("the watcher did not stop with its context")
	}
}

// A card raised after the daemon started but before the watcher's first
// poll (an agent quick off the mark) is announced; one from an earlier run
// is not.
func TestApprovalWatcherAnnouncesACardFromBeforeItsFirstPoll(t *testing.T) {
	api := &fakeAPI{added: make(chan struct{}, 1)}
	api.add("system.start", map[string]any{})
	api.add("approval.requested", map[string]any{"id": "earlier-run", "tool": "run_command", "argv": []string{"old"}})
	api.add("system.start", map[string]any{})
	api.add("approval.requested", map[string]any{"id": "early", "tool": "run_command", "argv": []string{"make"}})
	n := &fakeNotifier{ch: make(chan struct{}, 8)}
	w := &approvalWatcher{api: api, hidden: func() bool { return true }, notify: n, logger: slog.New(slog.NewTextHandler(io.Discard, nil)), wait: 1}
	go w.run(t.Context())
	n.next(t, "the card raised before the first poll was not announced")
	got := n.sent()
	if len(got) != 1 || !strings.Contains(got[0], "|early|") {
		t.Fatalf("calls: %q", got)
	}
}

func TestAppIconMatchesBuildAsset(t *testing.T) {
	icon := AppIcon(1024)
	img, err := png.Decode(bytes.NewReader(icon))
	if err != nil || img.Bounds().Dx() != 1024 || img.Bounds().Dy() != 1024 {
		t.Fatalf("icon: %v %v", err, img.Bounds())
	}
	// Corner transparent, centre of the mark white, the background blue.
	if _, _, _, a := img.At(2, 2).RGBA(); a != 0 {
		t.Errorf("corner alpha %d", a)
	}
	if r, g, b, _ := img.At(512, 420).RGBA(); r>>8 != 0xff || g>>8 != 0xff || b>>8 != 0xff {
		t.Errorf("mark colour %d %d %d", r>>8, g>>8, b>>8)
	}
	if r, g, b, _ := img.At(160, 512).RGBA(); r>>8 != 0x0b || g>>8 != 0x5c || b>>8 != 0xd5 {
		t.Errorf("background colour %d %d %d", r>>8, g>>8, b>>8)
	}
	path := filepath.Join("..", "..", "build", "appicon.png")
	if *update {
		if err := os.WriteFile(path, icon, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(have, icon) {
		t.Fatalf("build/appicon.png is not AppIcon(1024) (err %v); run: go test ./app/desktop -run TestAppIcon -update", err)
	}
}

func desktopEntry(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kv := map[string]string{}
	sc := bufio.NewScanner(f)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			if line != "[Desktop Entry]" {
				t.Fatalf("%s: first line %q", path, line)
			}
			first = false
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: bad line %q", path, line)
		}
		kv[k] = v
	}
	return kv
}

func TestBuildAssets(t *testing.T) {
	app := desktopEntry(t, filepath.Join("..", "..", "build", "linux", "gatehouse.desktop"))
	for k, want := range map[string]string{"Type": "Application", "Name": AppName, "Exec": "gatehouse", "Icon": "gatehouse", "StartupWMClass": "gatehouse", "Terminal": "false"} {
		if app[k] != want {
			t.Errorf("gatehouse.desktop %s=%q, want %q", k, app[k], want)
		}
	}
	auto := desktopEntry(t, filepath.Join("..", "..", "build", "linux", "autostart", "gatehouse.desktop"))
	if auto["Exec"] != "gatehouse desktop --start-hidden" {
		t.Errorf("autostart Exec=%q", auto["Exec"])
	}

	b, err := os.ReadFile(filepath.Join("..", "..", "build", "darwin", "Info.plist"))
	if err != nil {
		t.Fatal(err)
	}
	// Every <key> is followed by its value; collect the string ones.
	dec := xml.NewDecoder(bytes.NewReader(b))
	plist := map[string]string{}
	var key, el string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Info.plist: %v", err)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			el = v.Name.Local
		case xml.CharData:
			s := strings.TrimSpace(string(v))
			if s == "" {
				continue
			}
			if el == "key" {
				key = s
			} else if el == "string" && key != "" {
				plist[key] = s
				key = ""
			}
		}
	}
	for k, want := range map[string]string{"CFBundleExecutable": "gatehouse", "CFBundleIdentifier": "dev.gatehouse.desktop", "CFBundleName": AppName} {
		if plist[k] != want {
			t.Errorf("Info.plist %s=%q, want %q", k, plist[k], want)
		}
	}

	var wj struct {
		Name   string `json:"name"`
		Output string `json:"outputfilename"`
		Dir    string `json:"frontend:dir"`
		Tags   string `json:"build:tags"`
	}
	b, err = os.ReadFile(filepath.Join("..", "..", "wails.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &wj); err != nil || wj.Output != "gatehouse-desktop" || wj.Dir != "frontend" || !strings.Contains(wj.Tags, "webkit2_41") || !strings.Contains(wj.Tags, "desktop") {
		t.Fatalf("wails.json: %v %+v", err, wj)
	}
}

// Without a tray host the person is told, once, where the kill switch is;
// with one, or when the bus cannot say, nothing is sent.
func TestNoTrayNotice(t *testing.T) {
	tests := []struct {
		name string
		host bool
		err  error
		want int
	}{
		{"no tray host", false, nil, 1},
		{"a tray host", true, nil, 0},
		{"no answer from the bus", false, fmt.Errorf("no bus"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &fakeNotifier{ch: make(chan struct{}, 8)}
			r := &resident{logger: slog.New(slog.DiscardHandler)}
			r.noTrayNotice(n, func() (bool, error) { return tt.host, tt.err })
			if len(n.calls) != tt.want {
				t.Fatalf("notifications %q, want %d", n.calls, tt.want)
			}
			if tt.want == 1 {
				if c := n.calls[0]; !strings.HasPrefix(c, tray.NoHostTitle+"|") || !strings.Contains(c, "Gatehouse window") || !strings.Contains(c, "gatehouse kill") || strings.HasSuffix(c, "|true") {
					t.Fatalf("notification %q does not say where the kill switch is (or offers decisions)", c)
				}
			}
		})
	}
}
