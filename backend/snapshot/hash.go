package snapshot

import (
	"encoding/hex"
	"fmt"

	"github.com/zeebo/blake3"
)

// Hash is the BLAKE3-256 of an object's content.
type Hash [32]byte

func hashBytes(b []byte) Hash { return Hash(blake3.Sum256(b)) }

func (h Hash) String() string { return hex.EncodeToString(h[:]) }
func (h Hash) Short() string  { return hex.EncodeToString(h[:6]) }
func (h Hash) IsZero() bool   { return h == Hash{} }

// ParseHash reads the hex form produced by String.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 64 {
		return h, fmt.Errorf("%w: hash %q has the wrong length", ErrBadRequest, s)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("%w: hash %q: %v", ErrBadRequest, s, err)
	}
	return h, nil
}

func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }
func (h *Hash) UnmarshalText(b []byte) error {
	v, err := ParseHash(string(b))
	if err != nil {
		return err
	}
	*h = v
	return nil
}
