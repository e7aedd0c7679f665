package secrets

import (
	"bytes"
	"slices"
	"sort"
	"strings"
)

// MinSecretLen is the shortest configured value redacted exactly; anything
// shorter would shred ordinary text.
const MinSecretLen = 4

// Redactor replaces secret values with [REDACTED:NAME] and token shapes with
// [REDACTED:kind]. It is immutable and safe for concurrent use.
type Redactor struct {
	exact    []exactValue // longest first, so a secret containing another wins
	maxExact int
	// first2 flags the two-byte prefixes of exact values, so one pass over
	// the input finds every value without a search per secret.
	first2 *[1 << 16]bool
	byPref map[uint16][]int // indexes into exact, longest first
	// start flags bytes that can begin an exact value or a token shape; the
	// scan skips everything else in a tight loop.
	start [256]bool
	// exactStart flags the first bytes of exact values.
	exactStart [256]bool
}

type exactValue struct {
	value []byte
	label []byte
}

// NewRedactor builds a Redactor from secret values, typically
// store.Values() followed by HostSecrets(os.Environ()). Values shorter than
// MinSecretLen are ignored; a value listed twice keeps its first name.
func NewRedactor(values ...[]Value) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	for _, vs := range values {
		for _, v := range vs {
			if len(v.Value) < MinSecretLen || seen[v.Value] {
				continue
			}
			seen[v.Value] = true
			r.exact = append(r.exact, exactValue{value: []byte(v.Value), label: marker(v.Name)})
			r.maxExact = max(r.maxExact, len(v.Value))
		}
	}
	sort.SliceStable(r.exact, func(i, j int) bool { return len(r.exact[i].value) > len(r.exact[j].value) })
	for c := range 256 {
		r.start[c] = class[c]&cAnchor != 0
	}
	r.first2 = new([1 << 16]bool)
	r.byPref = map[uint16][]int{}
	for i, e := range r.exact {
		k := uint16(e.value[0])<<8 | uint16(e.value[1])
		r.first2[k] = true
		r.start[e.value[0]] = true
		r.exactStart[e.value[0]] = true
		r.byPref[k] = append(r.byPref[k], i)
	}
	return r
}

// MarkerPrefix begins every marker that stands in for a redacted value:
// "[REDACTED:github_token]", "[REDACTED:.env:API_KEY]".
const MarkerPrefix = "[REDACTED:"

func marker(name string) []byte { return []byte(MarkerPrefix + name + "]") }

// Markers are the redaction markers in s, in order.
func Markers(s string) []string {
	var out []string
	for {
		i := strings.Index(s, MarkerPrefix)
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			return out
		}
		out = append(out, s[i:i+j+1])
		s = s[i+j+1:]
	}
}

// span is one stretch of input to replace.
type span struct {
	start, end int
	label      []byte
}

// find returns the spans to redact in b, sorted and non-overlapping, and the
// offset of the earliest token shape that may continue past the end of b
// (len(b) when none, or when atEOF). prev is the byte before b, or -1.
func (r *Redactor) find(b []byte, prev int, atEOF bool) ([]span, int) {
	var spans []span
	pending := len(b)
	for i := 0; i < len(b); {
		for i < len(b) && !r.start[b[i]] {
			i++
		}
		if i == len(b) {
			break
		}
		if i+1 < len(b) && r.first2[uint16(b[i])<<8|uint16(b[i+1])] {
			if n, label := r.exactAt(b[i:]); n > 0 {
				spans = append(spans, span{i, i + n, label})
				i += n
				continue
			}
		}
		if class[b[i]]&cAnchor == 0 {
			i++
			continue
		}
		p := prev
		if i > 0 {
			p = int(b[i-1])
		}
		m := matchShape(b, i, p, atEOF)
		if m.pending {
			pending = i
			break
		}
		if m.ok {
			spans = append(spans, span{i, m.end, marker(m.kind)})
		}
		// Step one byte, not past the match: an exact value may start inside
		// a token-like run, and overlapping spans are merged below.
		i++
	}
	return mergeSpans(spans), pending
}

// exactAt returns the length and label of the longest exact value at the
// start of b.
func (r *Redactor) exactAt(b []byte) (int, []byte) {
	for _, idx := range r.byPref[uint16(b[0])<<8|uint16(b[1])] {
		e := &r.exact[idx]
		if bytes.HasPrefix(b, e.value) {
			return len(e.value), e.label
		}
	}
	return 0, nil
}

// mergeSpans sorts spans and unites overlapping ones, keeping the label of
// the earliest (longest, on a tie).
func mergeSpans(s []span) []span {
	if len(s) < 2 {
		return s
	}
	slices.SortFunc(s, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	out := s[:1]
	for _, x := range s[1:] {
		last := &out[len(out)-1]
		if x.start < last.end {
			last.end = max(last.end, x.end)
			continue
		}
		out = append(out, x)
	}
	return out
}

// apply writes b with spans replaced to dst.
func apply(dst, b []byte, spans []span) []byte {
	at := 0
	for _, s := range spans {
		dst = append(dst, b[at:s.start]...)
		dst = append(dst, s.label...)
		at = s.end
	}
	return append(dst, b[at:]...)
}

// Bytes returns b redacted. When nothing needs redacting it returns b itself.
func (r *Redactor) Bytes(b []byte) []byte {
	spans, _ := r.find(b, -1, true)
	if len(spans) == 0 {
		return b
	}
	return apply(make([]byte, 0, len(b)), b, spans)
}

// Window returns b[start:end] redacted as it reads within all of b: a
// secret that the rest of b shows to begin before start or end after end
// (a private key's body on a page of its own) is still replaced where the
// window holds part of it.
func (r *Redactor) Window(b []byte, start, end int) []byte {
	spans, _ := r.find(b, -1, true)
	out := make([]byte, 0, end-start)
	at := start
	for _, s := range spans {
		if s.end <= start || s.start >= end {
			continue
		}
		if s.start > at {
			out = append(out, b[at:s.start]...)
		}
		out = append(out, s.label...)
		at = s.end
	}
	if at < end {
		out = append(out, b[at:end]...)
	}
	return out
}

// String returns s redacted.
func (r *Redactor) String(s string) string {
	spans, _ := r.find([]byte(s), -1, true)
	if len(spans) == 0 {
		return s
	}
	return string(apply(make([]byte, 0, len(s)), []byte(s), spans))
}
