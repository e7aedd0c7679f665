package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Event is one entry of the timeline. Seq, PrevHash and Hash are assigned by
// the store; Time is assigned by the store when left zero.
type Event struct {
	Seq      int64
	Time     time.Time
	Session  string
	CallID   string
	Kind     string
	Actor    string
	Payload  json.RawMessage // a JSON object, already redacted by the caller
	PrevHash string          // lowercase hex SHA-256
	Hash     string          // lowercase hex SHA-256

	// canonical marks a Payload EventWithPayload wrote in canonical form.
	canonical bool
}

// Actors that are not agents.
const (
	ActorHuman  = "human"
	ActorPolicy = "policy"
	ActorSystem = "system"
	agentPrefix = "agent:"
)

// MaxPayloadBytes caps one event's payload, before and after canonicalising.
const MaxPayloadBytes = 1 << 20

const (
	maxKindLen   = 64
	maxActorLen  = 128 + len(agentPrefix)
	maxIDLen     = 256
	timeLayout   = "2006-01-02T15:04:05.000000000Z"
	emptyPayload = "{}"
)

var (
	// ErrInvalidEvent wraps every validation failure of Append.
	ErrInvalidEvent = errors.New("invalid audit event")
	// ErrPayloadTooLarge is returned for payloads above MaxPayloadBytes.
	ErrPayloadTooLarge = errors.New("the audit payload is larger than 1 MiB; trim or summarise it before recording it")
)

// validKind accepts lowercase dotted words: [a-z][a-z0-9_]* separated by '.'.
// Hand-written because it runs on every append.
func validKind(k string) bool {
	if len(k) == 0 || len(k) > maxKindLen {
		return false
	}
	wordStart := true
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'a' && c <= 'z':
		case (c >= '0' && c <= '9') || c == '_':
			if wordStart {
				return false
			}
		case c == '.':
			if wordStart {
				return false
			}
			wordStart = true
			continue
		default:
			return false
		}
		wordStart = false
	}
	return !wordStart
}

// prepare validates e and returns a copy with a canonical payload and a UTC
// time, ready for the writer. It runs in the caller's goroutine so that the
// parsing work is spread over appenders instead of serialised in the writer.
func prepare(e Event) (Event, error) {
	if !validKind(e.Kind) {
		return Event{}, fmt.Errorf("%w: kind %q must be lowercase dotted words such as tool.call", ErrInvalidEvent, e.Kind)
	}
	if err := validActor(e.Actor); err != nil {
		return Event{}, err
	}
	if err := validID("session", e.Session); err != nil {
		return Event{}, err
	}
	if err := validID("call id", e.CallID); err != nil {
		return Event{}, err
	}
	if len(e.Payload) > MaxPayloadBytes {
		return Event{}, ErrPayloadTooLarge
	}
	payload := []byte(emptyPayload)
	if e.canonical {
		if len(e.Payload) == 0 || e.Payload[0] != '{' {
			return Event{}, fmt.Errorf("%w: payload must be a JSON object", ErrInvalidEvent)
		}
		payload = e.Payload
	} else if len(e.Payload) > 0 {
		var err error
		if payload, err = canonicalPayload(e.Payload); err != nil {
			return Event{}, err
		}
	}
	if !e.Time.IsZero() {
		if err := validTime(e.Time); err != nil {
			return Event{}, err
		}
		e.Time = e.Time.UTC()
	}
	e.Payload = payload
	e.Seq, e.PrevHash, e.Hash = 0, "", ""
	return e, nil
}

func canonicalPayload(raw []byte) ([]byte, error) {
	c, err := Canonicalize(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidEvent, err)
	}
	if len(c) == 0 || c[0] != '{' {
		return nil, fmt.Errorf("%w: payload must be a JSON object", ErrInvalidEvent)
	}
	if len(c) > MaxPayloadBytes {
		return nil, ErrPayloadTooLarge
	}
	return c, nil
}

func validActor(a string) error {
	switch a {
	case ActorHuman, ActorPolicy, ActorSystem:
		return nil
	}
	client, ok := strings.CutPrefix(a, agentPrefix)
	if !ok || client == "" || len(a) > maxActorLen || !printable(client) || strings.TrimSpace(client) != client {
		return fmt.Errorf("%w: actor %q must be human, policy, system or agent:<client name>", ErrInvalidEvent, a)
	}
	return nil
}

func validID(what, s string) error {
	if len(s) > maxIDLen || !printable(s) {
		return fmt.Errorf("%w: %s must be printable UTF-8 of at most %d bytes", ErrInvalidEvent, what, maxIDLen)
	}
	return nil
}

func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// validTime rejects times that do not fit int64 Unix nanoseconds, the stored form.
func validTime(t time.Time) error {
	if t.Year() < 1678 || t.Year() > 2261 {
		return fmt.Errorf("%w: time %s is outside 1678-2261", ErrInvalidEvent, t)
	}
	return nil
}

// formatTime is the one textual form of an event time: UTC, exactly nine
// fractional digits, so equal instants always format identically.
func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }
