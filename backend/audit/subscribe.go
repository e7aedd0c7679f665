package audit

import "errors"

// ErrSubscriberTooSlow is the reason a subscription was dropped because its
// buffer was full when a new event was committed.
var ErrSubscriberTooSlow = errors.New("the live event subscriber fell behind and was disconnected; reconnect and catch up with a query")

// DefaultSubscriberBuffer is used when Subscribe is given a size below 1.
const DefaultSubscriberBuffer = 1024

// Subscription receives committed events in seq order, without gaps, until
// it is closed. The writer never waits for a subscriber: one whose buffer is
// full is dropped, its channel closed and Err set to ErrSubscriberTooSlow.
//
// To follow the timeline without missing events: Subscribe first, then
// Query from the last seq you have, and skip live events with seq <= the
// last one the query returned.
type Subscription struct {
	s   *Store
	ch  chan Event
	err error // guarded by s.subMu
}

// Subscribe registers a live subscriber with a buffer of bufSize events.
func (s *Store) Subscribe(bufSize int) *Subscription {
	if bufSize < 1 {
		bufSize = DefaultSubscriberBuffer
	}
	sub := &Subscription{s: s, ch: make(chan Event, bufSize)}
	s.subMu.Lock()
	defer s.subMu.Unlock()
	if s.subsClosed {
		sub.err = ErrClosed
		close(sub.ch)
		return sub
	}
	s.subs[sub] = struct{}{}
	return sub
}

// C is closed when the subscription ends; then Err says why.
func (sub *Subscription) C() <-chan Event { return sub.ch }

// Err is nil while the subscription is live or after the subscriber's own
// Close; ErrSubscriberTooSlow or ErrClosed when the store ended it.
func (sub *Subscription) Err() error {
	sub.s.subMu.Lock()
	defer sub.s.subMu.Unlock()
	return sub.err
}

// Close ends the subscription; safe to call more than once.
func (sub *Subscription) Close() {
	sub.s.subMu.Lock()
	defer sub.s.subMu.Unlock()
	if _, ok := sub.s.subs[sub]; ok {
		delete(sub.s.subs, sub)
		close(sub.ch)
	}
}

// publish hands committed events to every subscriber without blocking.
func (s *Store) publish(events []Event) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	for sub := range s.subs {
		for _, e := range events {
			select {
			case sub.ch <- e:
				continue
			default:
			}
			s.endSub(sub, ErrSubscriberTooSlow)
			s.log.Warn("dropped a slow audit subscriber", "buffer", cap(sub.ch), "at_seq", e.Seq)
			break
		}
	}
}

// endSub must be called with subMu held.
func (s *Store) endSub(sub *Subscription, reason error) {
	delete(s.subs, sub)
	sub.err = reason
	close(sub.ch)
}

func (s *Store) closeSubs() {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	s.subsClosed = true
	for sub := range s.subs {
		s.endSub(sub, ErrClosed)
	}
}
