package audit

import (
	"encoding/json"
	"fmt"
	"time"
)

// MarshalJSON writes the event as canonical JSON with its hashes: the form
// of the API, the live stream and each line of an export.
//
//	{"actor":…,"call_id":…,"hash":…,"kind":…,"payload":{…},"prev_hash":…,"seq":…,"session":…,"time":…}
func (e Event) MarshalJSON() ([]byte, error) {
	return appendRecord(nil, &e), nil
}

func appendRecord(dst []byte, e *Event) []byte {
	payload := e.Payload
	if len(payload) == 0 {
		payload = []byte(emptyPayload)
	}
	return appendObject(dst, e, payload, true)
}

type eventJSON struct {
	Seq      int64           `json:"seq"`
	Time     string          `json:"time"`
	Session  string          `json:"session"`
	CallID   string          `json:"call_id"`
	Kind     string          `json:"kind"`
	Actor    string          `json:"actor"`
	Payload  json.RawMessage `json:"payload"`
	PrevHash string          `json:"prev_hash"`
	Hash     string          `json:"hash"`
}

// UnmarshalJSON reads the form MarshalJSON writes. The payload bytes are
// kept exactly as they appear, so a record can be re-verified.
func (e *Event) UnmarshalJSON(b []byte) error {
	var j eventJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	var t time.Time
	if j.Time != "" {
		var err error
		if t, err = time.Parse(time.RFC3339Nano, j.Time); err != nil {
			return fmt.Errorf("event time: %w", err)
		}
	}
	*e = Event{Seq: j.Seq, Time: t.UTC(), Session: j.Session, CallID: j.CallID, Kind: j.Kind,
		Actor: j.Actor, Payload: j.Payload, PrevHash: j.PrevHash, Hash: j.Hash}
	return nil
}
