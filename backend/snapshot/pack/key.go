package pack

import (
	"encoding/hex"
	"errors"

	"github.com/zeebo/blake3"
)

// Key is an object's name in the store: the BLAKE3-256 of its content.
//
// It is an alias of the unnamed array type, not a type of its own, so that
// snapshot.Hash (a named [32]byte with the methods callers see) is assignable
// to it and back without conversions, and this package needs no import of
// snapshot (which imports it).
type Key = [32]byte

func sum(b []byte) Key { return blake3.Sum256(b) }

func short(k Key) string { return hex.EncodeToString(k[:6]) }

// parseKey reads a loose object's name (its key in hex).
func parseKey(s string) (Key, error) {
	var k Key
	if len(s) != 64 {
		return k, errors.New("wrong length")
	}
	_, err := hex.Decode(k[:], []byte(s))
	return k, err
}
