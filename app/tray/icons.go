package tray

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"sync"
)

// IconSize is the edge of the generated icons, in pixels. Panels scale it.
const IconSize = 32

// Colours of the icons. Shapes differ too, so the states stay apart for
// people who do not tell these colours apart.
var iconColors = [iconCount]color.NRGBA{
	IconIdle:    {0x2e, 0x9e, 0x44, 0xff},
	IconActive:  {0x2f, 0x6f, 0xde, 0xff},
	IconWaiting: {0xe8, 0xa3, 0x17, 0xff},
	IconPaused:  {0x80, 0x80, 0x80, 0xff},
	IconKilled:  {0xd3, 0x2f, 0x2f, 0xff},
	IconOffline: {0x9e, 0x9e, 0x9e, 0xff},
}

// Color is the main colour of icon i.
func (i Icon) Color() color.NRGBA { return iconColors[i] }

var icons = sync.OnceValue(func() [iconCount][]byte {
	var out [iconCount][]byte
	for i := range iconCount {
		out[i] = encodeIcon(i)
	}
	return out
})

// PNG is the icon as PNG bytes. The slice is shared and lives for the whole
// process (systray hands it to GTK without copying): never modify it.
func (i Icon) PNG() []byte {
	if i < 0 || i >= iconCount {
		i = IconOffline
	}
	return icons()[i]
}

// shape reports, for a point in [-1,1]², whether it is painted and whether
// it is part of the white glyph.
func (i Icon) shape(x, y float64) (paint, glyph bool) {
	r := math.Hypot(x, y)
	if i == IconOffline {
		return r <= 0.92 && r >= 0.62, false
	}
	if r > 0.92 {
		return false, false
	}
	ax, ay := math.Abs(x), math.Abs(y)
	switch i {
	case IconActive: // a dot
		glyph = r <= 0.32
	case IconWaiting: // "!"
		glyph = (ax <= 0.12 && y >= -0.58 && y <= 0.18) || math.Hypot(x, y-0.42) <= 0.13
	case IconPaused: // two bars
		glyph = ay <= 0.45 && ax >= 0.1 && ax <= 0.32
	case IconKilled: // a stop square
		glyph = ax <= 0.36 && ay <= 0.36
	}
	return true, glyph
}

// encodeIcon draws icon i with 4×4 supersampling and encodes it as PNG.
func encodeIcon(i Icon) []byte {
	const ss = 4
	img := image.NewNRGBA(image.Rect(0, 0, IconSize, IconSize))
	base := iconColors[i]
	for py := range IconSize {
		for px := range IconSize {
			var cover, white float64
			for sy := range ss {
				for sx := range ss {
					x := (float64(px)+(float64(sx)+0.5)/ss)/IconSize*2 - 1
					y := (float64(py)+(float64(sy)+0.5)/ss)/IconSize*2 - 1
					paint, glyph := i.shape(x, y)
					if paint {
						cover++
						if glyph {
							white++
						}
					}
				}
			}
			if cover == 0 {
				continue
			}
			w := white / cover
			mix := func(c uint8) uint8 { return uint8(math.Round(float64(c)*(1-w) + 255*w)) }
			img.SetNRGBA(px, py, color.NRGBA{mix(base.R), mix(base.G), mix(base.B), uint8(math.Round(255 * cover / (ss * ss)))})
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, img); err != nil {
		panic(err) // encoding an in-memory NRGBA image cannot fail
	}
	return buf.Bytes()
}
