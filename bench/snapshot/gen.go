package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

var words = strings.Fields(`func return if else for range package import type struct interface
map string int error nil true false var const go defer select case switch break continue
value result handler request response context config buffer index count offset length
the a of to in is that it with as on be at by this from or an will which`)

// workspace is a generated tree of text and binary files.
type workspace struct {
	root  string
	files []string // root-relative
	rng   *rand.Rand
}

// generate writes n files totalling about mb MiB: three quarters text
// (source-like, compressible), one quarter random binary, 20 per directory.
func generate(root string, n int, mb int64, seed uint64) (*workspace, error) {
	ws := &workspace{root: root, rng: rand.New(rand.NewPCG(seed, 1))}
	avg := mb << 20 / int64(max(n, 1))
	for i := range n {
		rel := filepath.Join(fmt.Sprintf("d%03d", i/2000), fmt.Sprintf("e%03d", i/20%100), fmt.Sprintf("f%06d", i))
		size := int64(float64(avg) * (0.1 + 1.8*ws.rng.Float64()))
		var data []byte
		if ws.rng.IntN(4) == 0 {
			rel += ".bin"
			data = ws.binary(size)
		} else {
			rel += ".go"
			data = ws.text(size)
		}
		p := filepath.Join(root, rel)
		if i%20 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, err
			}
		}
		mode := os.FileMode(0o644)
		if i%97 == 0 {
			mode = 0o755
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			return nil, err
		}
		ws.files = append(ws.files, rel)
	}
	return ws, nil
}

func (ws *workspace) text(size int64) []byte {
	var b strings.Builder
	b.Grow(int(size) + 16)
	for int64(b.Len()) < size {
		b.WriteString(words[ws.rng.IntN(len(words))])
		if ws.rng.IntN(10) == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return []byte(b.String()[:size])
}

func (ws *workspace) binary(size int64) []byte {
	b := make([]byte, size)
	for i := 0; i+8 <= len(b); i += 8 {
		v := ws.rng.Uint64()
		for k := range 8 {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	return b
}

// touch rewrites k distinct random files with new content.
func (ws *workspace) touch(k int) ([]string, error) {
	picked := map[int]bool{}
	var out []string
	for len(out) < min(k, len(ws.files)) {
		i := ws.rng.IntN(len(ws.files))
		if picked[i] {
			continue
		}
		picked[i] = true
		rel := ws.files[i]
		p := filepath.Join(ws.root, rel)
		old, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		data := append([]byte(fmt.Sprintf("// edit %d\n", ws.rng.Uint64())), old...)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		out = append(out, rel)
	}
	return out, nil
}
