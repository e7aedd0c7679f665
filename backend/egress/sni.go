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
	ext, err := exts.find(2, 0, false) // server_name
	if err != nil {
		return "", err
	}
	list, ok := ext.vec(2)
	if !ok {
		return "", errBadTLS
	}
	name, err := list.find(1, 0, true) // host_name
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(strings.ToLower(string(name)), "."), nil
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

// entry reads a typeBytes-long type and the vector with a two-byte length
// that follows it: an extension, or a server name in its list.
func (r *reader) entry(typeBytes int) (typ int, data reader, ok bool) {
	if len(*r) < typeBytes {
		return 0, nil, false
	}
	for _, c := range (*r)[:typeBytes] {
		typ = typ<<8 | int(c)
	}
	*r = (*r)[typeBytes:]
	data, ok = r.vec(2)
	return typ, data, ok
}

// find is the data of the first entry of type want (with data, if
// nonEmpty); errNoSNI when there is none.
func (r reader) find(typeBytes, want int, nonEmpty bool) (reader, error) {
	for len(r) > 0 {
		typ, data, ok := r.entry(typeBytes)
		if !ok {
			return nil, errBadTLS
		}
		if typ == want && (!nonEmpty || len(data) > 0) {
			return data, nil
		}
	}
	return nil, errNoSNI
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
