package daemon

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestQuietInfoLowersOnlyInfo(t *testing.T) {
	var buf bytes.Buffer
	l := quietInfo(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	l.Info("server connecting")
	l.With("k", "v").Info("session initialized")
	l.Warn("kept warning")
	l.Error("kept error")
	out := buf.String()
	if strings.Contains(out, "connecting") || strings.Contains(out, "initialized") {
		t.Fatalf("INFO reached an info-level log:\n%s", out)
	}
	if !strings.Contains(out, "kept warning") || !strings.Contains(out, "kept error") {
		t.Fatalf("warnings or errors lost:\n%s", out)
	}
	buf.Reset()
	dbg := quietInfo(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	dbg.Info("server connecting")
	if !strings.Contains(buf.String(), "level=DEBUG") || !strings.Contains(buf.String(), "server connecting") {
		t.Fatalf("at debug level the SDK line should show as DEBUG: %s", buf.String())
	}
}
