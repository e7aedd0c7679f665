package tray

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"testing"
)

func TestRender(t *testing.T) {
	for _, tc := range []struct {
		name  string
		s     State
		icon  Icon
		title string
		pause string
		pen   bool
	}{
		{"idle", State{}, IconIdle, "Gatehouse: no agents active", LabelPause, true},
		{"one agent", State{Active: 1}, IconActive, "Gatehouse: 1 agent active", LabelPause, true},
		{"waiting", State{Active: 2, Pending: 1}, IconWaiting, "Gatehouse: 2 agents active, 1 waiting for you", LabelPause, true},
		{"paused", State{Paused: true, Active: 2, Pending: 3}, IconPaused, "Gatehouse: paused, 2 agents active, 3 waiting for you", LabelResume, true},
		{"killed wins over paused", State{Killed: true, Paused: true, Active: 1}, IconKilled, "Gatehouse: all agents stopped; new calls are refused until you resume", LabelResume, true},
		{"offline", State{Offline: true}, IconOffline, "Gatehouse: daemon not running; retrying", LabelPause, false},
		{"offline wins over stale switches", State{Offline: true, OfflineWhy: WhyNotAnswering, Killed: true}, IconOffline, "Gatehouse: daemon not answering; retrying", LabelResume, false},
		{"notice", State{Active: 1, Notice: "could not pause: the daemon did not answer."}, IconActive, "Gatehouse: 1 agent active (could not pause: the daemon did not answer)", LabelPause, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Render(tc.s)
			if v.Icon != tc.icon || v.Title != tc.title || v.PauseLabel != tc.pause || v.PauseEnabled != tc.pen {
				t.Fatalf("Render(%+v) = %+v, want icon %v title %q pause %q enabled %v", tc.s, v, tc.icon, tc.title, tc.pause, tc.pen)
			}
			if v.Title != "Gatehouse: "+v.Summary {
				t.Fatalf("title %q does not carry summary %q", v.Title, v.Summary)
			}
		})
	}
}

func TestPausePath(t *testing.T) {
	for s, want := range map[State]string{
		{}:                           PathPause,
		{Active: 3, Pending: 1}:      PathPause,
		{Paused: true}:               PathResume,
		{Killed: true}:               PathResume,
		{Killed: true, Paused: true}: PathResume,
	} {
		if got := PausePath(s); got != want {
			t.Errorf("PausePath(%+v) = %s, want %s", s, got, want)
		}
	}
}

func TestFromStatus(t *testing.T) {
	var st Status
	raw := `{"state":{"paused":true,"killed":false,"active_sessions":4},"pending_approvals":2,"sandbox":"bwrap","pid":7}`
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		t.Fatal(err)
	}
	got := FromStatus(st)
	if want := (State{Paused: true, Active: 4, Pending: 2}); got != want {
		t.Fatalf("FromStatus = %+v, want %+v", got, want)
	}
}

// TestIcons: every state has its own valid PNG, and the colours at the
// rim tell the five daemon states apart.
func TestIcons(t *testing.T) {
	seen := map[string]Icon{}
	rim := map[[3]uint8]Icon{}
	for i := range iconCount {
		b := i.PNG()
		if prev, dup := seen[string(b)]; dup {
			t.Fatalf("%v and %v have the same icon", prev, i)
		}
		seen[string(b)] = i
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%v: %v", i, err)
		}
		if img.Bounds() != image.Rect(0, 0, IconSize, IconSize) {
			t.Fatalf("%v: bounds %v", i, img.Bounds())
		}
		// Corners are transparent, the rim (left middle, inside the disk)
		// has the state's colour.
		if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
			t.Fatalf("%v: corner not transparent", i)
		}
		r, g, bl, a := img.At(IconSize/8, IconSize/2).RGBA()
		want := i.Color()
		if a>>8 != 0xff || uint8(r>>8) != want.R || uint8(g>>8) != want.G || uint8(bl>>8) != want.B {
			t.Fatalf("%v: rim pixel %x %x %x %x, want %v", i, r>>8, g>>8, bl>>8, a>>8, want)
		}
		if i != IconOffline {
			c := [3]uint8{want.R, want.G, want.B}
			if prev, dup := rim[c]; dup {
				t.Fatalf("%v and %v share a colour", prev, i)
			}
			rim[c] = i
		}
		if i.String() == "" || i.String()[0] == 'i' && i.String() != "idle" {
			t.Fatalf("icon %d has no name: %q", int(i), i.String())
		}
	}
	// The offline icon is a ring: its centre is empty.
	img, _ := png.Decode(bytes.NewReader(IconOffline.PNG()))
	if _, _, _, a := img.At(IconSize/2, IconSize/2).RGBA(); a != 0 {
		t.Fatal("offline icon is not hollow")
	}
	if !bytes.Equal(IconKilled.PNG(), encodeIcon(IconKilled)) {
		t.Fatal("icons are not deterministic")
	}
}
