package audit

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// PayloadOptions tune EventWithPayload.
type PayloadOptions struct {
	// String rewrites every string, object keys included, before it is
	// written; the daemon redacts secrets here. Nil keeps strings as they are.
	String func(string) string
	// Other encodes a value of any type the encoder does not know as JSON
	// text (the daemon marshals and redacts it); the text is then
	// canonicalised. Nil refuses such values.
	Other func(any) ([]byte, error)
}

// EventWithPayload returns e with v as its payload, written straight in
// canonical form, so Append need not parse and re-emit it. The bytes are
// exactly what Canonicalize(json.Marshal(v)) gives when String and Other
// are applied to the same strings and values; encode_test.go holds the two
// to that.
func EventWithPayload(e Event, v map[string]any, o PayloadOptions) (Event, error) {
	b, err := o.object(make([]byte, 0, 256), v, 0)
	if err != nil {
		return Event{}, fmt.Errorf("%w: %w", ErrInvalidEvent, err)
	}
	e.Payload, e.canonical = b, true
	return e, nil
}

func (o *PayloadOptions) str(s string) string {
	if !utf8.ValidString(s) {
		s = validUTF8(s)
	}
	if o.String != nil {
		s = o.String(s)
		if !utf8.ValidString(s) {
			s = validUTF8(s)
		}
	}
	return s
}

// validUTF8 replaces each invalid byte with U+FFFD, as encoding/json does.
func validUTF8(s string) string {
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

func (o *PayloadOptions) object(dst []byte, m map[string]any, depth int) ([]byte, error) {
	if m == nil {
		return append(dst, "null"...), nil
	}
	if depth > maxDepth {
		return nil, fmt.Errorf("nesting deeper than %d", maxDepth)
	}
	type kv struct {
		key string
		val any
	}
	members := make([]kv, 0, len(m))
	for k, v := range m {
		members = append(members, kv{o.str(k), v})
	}
	slices.SortFunc(members, func(a, b kv) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	dst = append(dst, '{')
	for i, m := range members {
		if i > 0 {
			if m.key == members[i-1].key {
				return nil, fmt.Errorf("an object has the same key twice")
			}
			dst = append(dst, ',')
		}
		dst = appendCanonicalString(dst, m.key)
		dst = append(dst, ':')
		var err error
		if dst, err = o.value(dst, m.val, depth+1); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

func (o *PayloadOptions) value(dst []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return appendCanonicalString(dst, o.str(x)), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case float64:
		return appendCanonicalFloat(dst, x)
	case map[string]any:
		return o.object(dst, x, depth)
	case []any:
		return appendArray(dst, x, func(dst []byte, e any) ([]byte, error) { return o.value(dst, e, depth+1) })
	case []string:
		return appendArray(dst, x, func(dst []byte, e string) ([]byte, error) {
			return appendCanonicalString(dst, o.str(e)), nil
		})
	}
	if o.Other == nil {
		return nil, fmt.Errorf("cannot encode a %T in an audit payload", v)
	}
	b, err := o.Other(v)
	if err != nil {
		return nil, err
	}
	p := canonParser{in: b}
	p.skipSpace()
	if dst, err = p.value(dst, depth); err != nil {
		return nil, err
	}
	if p.skipSpace(); p.pos != len(p.in) {
		return nil, p.errorf("unexpected data after the JSON value")
	}
	return dst, nil
}

// appendCanonicalFloat writes x as canonical(json.Marshal(x)): encoding/json
// writes integral values below 1e21 as plain digits, which canonical form
// keeps; anything else canonical form rewrites as %g.
func appendCanonicalFloat(dst []byte, x float64) ([]byte, error) {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return nil, fmt.Errorf("unsupported number %v", x)
	case x == 0:
		return append(dst, '0'), nil
	case x == math.Trunc(x) && math.Abs(x) < 1e21:
		return strconv.AppendFloat(dst, x, 'f', -1, 64), nil
	}
	return strconv.AppendFloat(dst, x, 'g', -1, 64), nil
}

// appendArray writes xs as a JSON array (null when nil), each element
// written by elem.
func appendArray[T any](dst []byte, xs []T, elem func([]byte, T) ([]byte, error)) ([]byte, error) {
	if xs == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, e := range xs {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = elem(dst, e); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}
