//go:build !linux && !darwin

package desktop

import "errors"

type noNotifier struct{}

func newNotifier(func(string, Action)) Notifier { return noNotifier{} }

func (noNotifier) Notify(Notification) (uint32, error) {
	return 0, errors.New("desktop notifications are unsupported on this operating system")
}

func (noNotifier) Close() error { return nil }
