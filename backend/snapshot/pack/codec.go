package pack

import (
	"runtime"

	"github.com/klauspost/compress/zstd"
)

// Stored object encodings.
const (
	encRaw  byte = 0
	encZstd byte = 1
	// encBlock: part of a zstd block shared with other objects. Only in
	// memory; on disk the record is encZstd and the index gives the offset.
	encBlock byte = 2
)

type codec struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}

func newCodec() (*codec, error) {
	enc, err := zstd.NewWriter(nil,
		// Default level: the first checkpoint has time to spare against
		// shadow git, and store size is a target too.
		zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithEncoderCRC(false)) // content is verified by its BLAKE3 key instead
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)))
	if err != nil {
		return nil, err
	}
	return &codec{enc: enc, dec: dec}, nil
}

// pack returns the bytes to store and their encoding. Small or
// incompressible data is stored raw: decompressing it would cost time for no
// saved space.
func (c *codec) pack(raw []byte) ([]byte, byte) {
	if len(raw) < 64 {
		return raw, encRaw
	}
	z := c.enc.EncodeAll(raw, make([]byte, 0, len(raw)/2))
	if len(z) >= len(raw)-len(raw)/16 {
		return raw, encRaw
	}
	return z, encZstd
}

func (c *codec) unpack(stored []byte, enc byte, rawLen int64) ([]byte, error) {
	if enc == encRaw {
		return stored, nil
	}
	return c.dec.DecodeAll(stored, make([]byte, 0, rawLen))
}

func (c *codec) close() {
	c.enc.Close()
	c.dec.Close()
}
