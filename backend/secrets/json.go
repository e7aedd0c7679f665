package secrets

import (
	"bytes"
	"encoding/json"
	"errors"
)

// ErrNotJSON is returned by JSON for input that is not valid JSON.
var ErrNotJSON = errors.New("the payload is not valid JSON")

// JSON redacts inside every string of a JSON document (keys included) and
// returns a document that is still valid JSON. Escaped forms are decoded
// first, so a secret written as \u0067hp_… is found too. Everything outside
// strings is copied byte for byte.
func (r *Redactor) JSON(b []byte) ([]byte, error) {
	if !json.Valid(b) {
		return nil, ErrNotJSON
	}
	var out []byte // allocated on the first change
	at := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		end := stringEnd(b, i)
		raw := b[i:end]
		red, changed, err := r.jsonString(raw)
		if err != nil {
			return nil, err
		}
		if changed {
			if out == nil {
				out = make([]byte, 0, len(b))
			}
			out = append(out, b[at:i]...)
			out = append(out, red...)
			at = end
		}
		i = end - 1
	}
	if out == nil {
		return b, nil
	}
	return append(out, b[at:]...), nil
}

// stringEnd returns the index just past the closing quote of the string
// starting at b[i] (b is known to be valid JSON).
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

func (r *Redactor) jsonString(raw []byte) ([]byte, bool, error) {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		// No escapes: the bytes are the value, and markers need no escaping.
		spans, _ := r.find(inner, -1, true)
		if len(spans) == 0 {
			return raw, false, nil
		}
		out := append([]byte{'"'}, apply(nil, inner, spans)...)
		return append(out, '"'), true, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, false, err
	}
	red := r.String(s)
	if red == s {
		return raw, false, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(red); err != nil {
		return nil, false, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), true, nil
}
