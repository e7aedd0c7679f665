package audit

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestPrepareValidates(t *testing.T) {
	ok := Event{Kind: "tool.call", Actor: "agent:claude-code", Payload: []byte(`{"a":1}`)}
	with := func(f func(*Event)) Event { e := ok; f(&e); return e }
	tests := []struct {
		name string
		ev   Event
		want error // nil: accepted
	}{
		{"valid agent", ok, nil},
		{"human", with(func(e *Event) { e.Actor = "human" }), nil},
		{"policy", with(func(e *Event) { e.Actor = "policy" }), nil},
		{"system kill", with(func(e *Event) { e.Actor = "system"; e.Kind = "system.kill" }), nil},
		{"agent with spaces inside", with(func(e *Event) { e.Actor = "agent:Claude Code" }), nil},
		{"empty payload becomes {}", with(func(e *Event) { e.Payload = nil }), nil},
		{"single-word kind", with(func(e *Event) { e.Kind = "startup" }), nil},
		{"empty kind", with(func(e *Event) { e.Kind = "" }), ErrInvalidEvent},
		{"upper kind", with(func(e *Event) { e.Kind = "Tool.Call" }), ErrInvalidEvent},
		{"trailing dot kind", with(func(e *Event) { e.Kind = "tool." }), ErrInvalidEvent},
		{"kind with digits and underscores", with(func(e *Event) { e.Kind = "approval_v2.decided_1" }), nil},
		{"kind double dot", with(func(e *Event) { e.Kind = "tool..call" }), ErrInvalidEvent},
		{"kind leading dot", with(func(e *Event) { e.Kind = ".tool" }), ErrInvalidEvent},
		{"kind word starts with digit", with(func(e *Event) { e.Kind = "tool.1call" }), ErrInvalidEvent},
		{"kind with dash", with(func(e *Event) { e.Kind = "tool-call" }), ErrInvalidEvent},
		{"long kind", with(func(e *Event) { e.Kind = strings.Repeat("a", 65) }), ErrInvalidEvent},
		{"empty actor", with(func(e *Event) { e.Actor = "" }), ErrInvalidEvent},
		{"unknown actor", with(func(e *Event) { e.Actor = "root" }), ErrInvalidEvent},
		{"agent without client", with(func(e *Event) { e.Actor = "agent:" }), ErrInvalidEvent},
		{"agent padded", with(func(e *Event) { e.Actor = "agent: x" }), ErrInvalidEvent},
		{"agent control char", with(func(e *Event) { e.Actor = "agent:x\n" }), ErrInvalidEvent},
		{"agent too long", with(func(e *Event) { e.Actor = "agent:" + strings.Repeat("x", 129) }), ErrInvalidEvent},
		{"session control char", with(func(e *Event) { e.Session = "a\x00" }), ErrInvalidEvent},
		{"call id bad utf8", with(func(e *Event) { e.CallID = "\xff" }), ErrInvalidEvent},
		{"payload not json", with(func(e *Event) { e.Payload = []byte(`{"a":`) }), ErrInvalidEvent},
		{"payload array", with(func(e *Event) { e.Payload = []byte(`[1]`) }), ErrInvalidEvent},
		{"payload string", with(func(e *Event) { e.Payload = []byte(`"x"`) }), ErrInvalidEvent},
		{"payload too large", with(func(e *Event) {
			e.Payload = []byte(`{"a":"` + strings.Repeat("x", MaxPayloadBytes) + `"}`)
		}), ErrPayloadTooLarge},
		{"time out of range", with(func(e *Event) { e.Time = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC) }), ErrInvalidEvent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := prepare(tc.ev)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("prepare: %v", err)
				}
				if got.Payload[0] != '{' {
					t.Fatalf("payload %s", got.Payload)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("prepare = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestPrepareKeepsCallerTimeInUTC(t *testing.T) {
	loc := time.FixedZone("X", 3*3600)
	in := time.Date(2025, 3, 1, 12, 0, 0, 123456789, loc)
	got, err := prepare(Event{Kind: "a.b", Actor: "human", Time: in})
	if err != nil {
		t.Fatal(err)
	}
	if got.Time.Location() != time.UTC || !got.Time.Equal(in) {
		t.Fatalf("time %v", got.Time)
	}
	if s := formatTime(got.Time); s != "2025-03-01T09:00:00.123456789Z" {
		t.Fatalf("formatTime = %s", s)
	}
}

func TestHashedFormIsCanonical(t *testing.T) {
	e := Event{Seq: 7, Time: time.Unix(0, 1).UTC(), Session: "s\"1", CallID: "c", Kind: "tool.call",
		Actor: "agent:x", Payload: []byte(`{"a":1}`)}
	form := appendHashedForm(nil, &e)
	want := `{"actor":"agent:x","call_id":"c","kind":"tool.call","payload":{"a":1},"seq":7,"session":"s\"1","time":"1970-01-01T00:00:00.000000001Z"}`
	if string(form) != want {
		t.Fatalf("hashed form\n got %s\nwant %s", form, want)
	}
	if c, err := Canonicalize(form); err != nil || string(c) != want {
		t.Fatalf("hashed form is not canonical JSON: %s %v", c, err)
	}
	// Pin the hash definition: SHA-256(prev_hash hex || hashed form).
	var h hasher
	got, _ := h.sum(GenesisHash, &e)
	// Expected value computed outside Go: printf '%s%s' <64 zeros> '<form>' | sha256sum
	if got != "c0c95fdde97642b2700d6c0d115f7651e7693e5e0b560bba767c0294cb5623ec" {
		t.Fatalf("hash %s", got)
	}
}
