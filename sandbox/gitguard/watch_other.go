//go:build !linux

package gitguard

import "errors"

type watcher struct{}

func watch([]string, keepSet, func(string) bool) (*watcher, error) {
	return nil, errors.New("watching git's protected paths needs Linux inotify")
}

func (w *watcher) stop() {}

func (w *watcher) rearm(string) error { return nil }
