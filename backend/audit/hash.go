package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// GenesisHash is the prev_hash of the first event (seq 1).
const GenesisHash = "0000000000000000000000000000000000000000000000000000000000000000"

// The chain:
//
//	hash(e) = lowercase_hex( SHA-256( e.prev_hash || canonical(e) ) )
//
// where e.prev_hash is the previous event's hash as 64 lowercase hex ASCII
// bytes (GenesisHash for seq 1) and canonical(e) is the canonical JSON (see
// canonical.go) of the object
//
//	{"actor":…,"call_id":…,"kind":…,"payload":<canonical payload>,"seq":<integer>,"session":…,"time":"YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ"}
//
// i.e. the event without its two hash fields. Including seq makes deletions
// and reorderings break the chain; including prev_hash chains every row to
// all rows before it.

// appendHashedForm appends canonical(e) to dst. e.Payload must already be
// canonical.
func appendHashedForm(dst []byte, e *Event) []byte {
	return appendObject(dst, e, e.Payload, false)
}

// appendObject appends e as a canonical JSON object, its keys written in
// sorted order by construction: with hashes, the record form (json.go);
// without, the form the chain hashes.
func appendObject(dst []byte, e *Event, payload []byte, hashes bool) []byte {
	dst = append(dst, `{"actor":`...)
	dst = appendCanonicalString(dst, e.Actor)
	dst = append(dst, `,"call_id":`...)
	dst = appendCanonicalString(dst, e.CallID)
	if hashes {
		dst = append(dst, `,"hash":`...)
		dst = appendCanonicalString(dst, e.Hash)
	}
	dst = append(dst, `,"kind":`...)
	dst = appendCanonicalString(dst, e.Kind)
	dst = append(dst, `,"payload":`...)
	dst = append(dst, payload...)
	if hashes {
		dst = append(dst, `,"prev_hash":`...)
		dst = appendCanonicalString(dst, e.PrevHash)
	}
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendInt(dst, e.Seq, 10)
	dst = append(dst, `,"session":`...)
	dst = appendCanonicalString(dst, e.Session)
	dst = append(dst, `,"time":"`...)
	dst = e.Time.UTC().AppendFormat(dst, timeLayout)
	return append(dst, `"}`...)
}

// hasher computes chain hashes reusing one buffer; not safe for concurrent use.
type hasher struct{ buf []byte }

// sum returns hex(SHA-256(prevHex || canonical(e))) as a string and raw bytes.
func (h *hasher) sum(prevHex string, e *Event) (string, [sha256.Size]byte) {
	h.buf = append(h.buf[:0], prevHex...)
	h.buf = appendHashedForm(h.buf, e)
	raw := sha256.Sum256(h.buf)
	return hex.EncodeToString(raw[:]), raw
}
