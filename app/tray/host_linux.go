//go:build linux

package tray

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"strings"

	"github.com/godbus/dbus/v5"
)

// HasHost reports whether a tray host owns WatcherName on the session bus.
func HasHost() (bool, error) {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false, err
	}
	defer conn.Close()
	return hasOwner(conn)
}

func hasOwner(conn *dbus.Conn) (bool, error) {
	var owned bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, WatcherName).Store(&owned); err != nil {
		return false, fmt.Errorf("ask the session bus for %s: %w", WatcherName, err)
	}
	return owned, nil
}

// watchHost logs whether the icon can be seen: now, and each time a tray
// host comes or goes (a panel restarted, or started after the tray), until
// ctx ends. systray registers the icon again by itself when one comes.
func watchHost(ctx context.Context, logger *slog.Logger) {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		logger.Warn("cannot tell whether a tray host shows the icon", "err", err)
		return
	}
	defer conn.Close()
	if err := conn.AddMatchSignal(
		dbus.WithMatchObjectPath("/org/freedesktop/DBus"),
		dbus.WithMatchInterface("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, WatcherName),
	); err != nil {
		logger.Warn("cannot watch for a tray host", "err", err)
	}
	ch := make(chan *dbus.Signal, 4)
	conn.Signal(ch)
	owned, err := hasOwner(conn)
	switch {
	case err != nil:
		logger.Warn("cannot tell whether a tray host shows the icon", "err", err)
	case owned:
		logger.Info("tray icon shown")
	default:
		logger.Warn(NoHostMessage)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case s := <-ch:
			if s == nil || len(s.Body) < 3 {
				continue
			}
			switch now, _ := s.Body[2].(string); {
			case now != "" && !owned:
				owned = true
				logger.Info("a tray host appeared; tray icon shown")
			case now == "" && owned:
				owned = false
				logger.Warn(NoHostMessage)
			}
		}
	}
}

// quietSystray routes the systray library's own log lines (the standard
// logger, in this process of its own) into logger: its "failed to
// register" is the missing tray host, which watchHost words for people.
func quietSystray(logger *slog.Logger) {
	r, w := io.Pipe()
	log.SetOutput(w)
	log.SetFlags(0)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if strings.Contains(line, "failed to register") && strings.Contains(line, WatcherName) {
				logger.Debug("systray", "said", line)
				continue
			}
			logger.Warn("systray", "said", line)
		}
	}()
}
