package egress

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"strings"
)

// maxHelloBytes bounds the TLS records read while looking for the end of
// a ClientHello (post-quantum key shares make it a few KiB; more is not a
// greeting).
const maxHelloBytes = 64 << 10

var (
	errNotTLS = errors.New("the tunnel does not start with a TLS handshake")
	errNoSNI  = errors.New("the TLS ClientHello names no server")
	errBadTLS = errors.New("the TLS ClientHello is malformed")
)

// peekClientHello reads the TLS records that carry the ClientHello from
// br and returns them unchanged (to forward) with the server name it
// asks for. TLS is never terminated: the proxy only reads the greeting.
func peekClientHello(br *bufio.Reader) (raw []byte, sni string, err error) {
	var hs []byte // handshake bytes, reassembled across records
	for {
		var hdr [5]byte
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return raw, "", errNotTLS
		}
		raw = append(raw, hdr[:]...)
		if hdr[0] != 0x16 || hdr[1] != 3 {
			return raw, "", errNotTLS
		}
		n := int(binary.BigEndian.Uint16(hdr[3:]))
		if n == 0 || n > 1<<14+2048 || len(raw)+n > maxHelloBytes {
			return raw, "", errBadTLS
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return raw, "", errBadTLS
		}
		raw = append(raw, body...)
		hs = append(hs, body...)
		if len(hs) < 4 {
			continue
		}
		if hs[0] != 1 { // client_hello
			return raw, "", errBadTLS
		}
		msgLen := int(hs[1])<<16 | int(hs[2])<<8 | int(hs[3])
		if 4+msgLen > maxHelloBytes {
			return raw, "", errBadTLS
		}
		if len(hs) >= 4+msgLen {
			sni, err := serverName(hs[4 : 4+msgLen])
			return raw, sni, err
		}
	}
}

// serverName finds the host_name of the server_name extension (RFC 6066)
// in a ClientHello body.
func serverName(b []byte) (string, error) {
	r := reader(b)
	// client_version, random, session_id, cipher_suites, compression_methods.
	if !r.skip(2+32) || !r.skipVec(1) || !r.skipVec(2) || !r.skipVec(1) {
		return "", errBadTLS
	}
	if len(r) == 0 {
		return "", errNoSNI // no extensions at all
	}
	exts, ok := r.vec(2)
	if !ok {
		return "", errBadTLS
	}
	for len(exts) > 0 {
		typ, ok1 := exts.u16()
		data, ok2 := exts.vec(2)
		if !ok1 || !ok2 {
			return "", errBadTLS
		}
		if typ != 0 {
			continue
		}
		list, ok := data.vec(2)
		if !ok {
			return "", errBadTLS
		}
		for len(list) > 0 {
			kind, ok1 := list.u8()
			name, ok2 := list.vec(2)
			if !ok1 || !ok2 {
				return "", errBadTLS
			}
			if kind == 0 && len(name) > 0 {
				return strings.TrimSuffix(strings.ToLower(string(name)), "."), nil
			}
		}
		return "", errNoSNI
	}
	return "", errNoSNI
}

// reader walks a TLS structure; every method reports whether the bytes
// were there.
type reader []byte

func (r *reader) skip(n int) bool {
	if len(*r) < n {
		return false
	}
	*r = (*r)[n:]
	return true
}

func (r *reader) u8() (byte, bool) {
	if len(*r) < 1 {
		return 0, false
	}
	v := (*r)[0]
	*r = (*r)[1:]
	return v, true
}

func (r *reader) u16() (uint16, bool) {
	if len(*r) < 2 {
		return 0, false
	}
	v := binary.BigEndian.Uint16(*r)
	*r = (*r)[2:]
	return v, true
}

// vec reads a vector with a lenBytes-long length prefix.
func (r *reader) vec(lenBytes int) (reader, bool) {
	if len(*r) < lenBytes {
		return nil, false
	}
	n := 0
	for _, c := range (*r)[:lenBytes] {
		n = n<<8 | int(c)
	}
	*r = (*r)[lenBytes:]
	if len(*r) < n {
		return nil, false
	}
	v := (*r)[:n]
	*r = (*r)[n:]
	return v, true
}

func (r *reader) skipVec(lenBytes int) bool {
	_, ok := r.vec(lenBytes)
	return ok
}

// unrecognizedName is a fatal TLS alert, unrecognized_name: what a server
// sends for a name it does not serve, so the client says so plainly.
var unrecognizedName = []byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x70}
