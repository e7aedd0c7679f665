//go:build !linux

package gitguard

import "errors"

type watcher struct{}

func watch([]string, keepSet, func(string)) (*watcher, error) {
	return nil, errors.New("watching git's protected paths needs Linux inotify")
}

func (w *watcher) stop() {}
