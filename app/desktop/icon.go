package desktop

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// The app icon is drawn here rather than kept as a binary: the same gate
// (the house from the UI's brand mark) on the accent-blue rounded square.
// build/appicon.png is this at 1024 px; a unit test keeps them equal.

var (
	iconBG = color.NRGBA{0x0b, 0x5c, 0xd5, 0xff} // --accent in the UI
	iconFG = color.NRGBA{0xff, 0xff, 0xff, 0xff}
)

// house is the brand mark's outline in its 24×24 box: M4 21V9l8-6 8 6v12h-5v-7H9v7z.
var house = [][2]float64{{4, 21}, {4, 9}, {12, 3}, {20, 9}, {20, 21}, {15, 21}, {15, 14}, {9, 14}, {9, 21}}

func inPolygon(x, y float64, poly [][2]float64) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		xi, yi, xj, yj := poly[i][0], poly[i][1], poly[j][0], poly[j][1]
		if (yi > y) != (yj > y) && x < (xj-xi)*(y-yi)/(yj-yi)+xi {
			in = !in
		}
	}
	return in
}

// inRoundedSquare tests a point in unit coordinates against the icon's
// background: a square inset by margin with corner radius r.
func inRoundedSquare(x, y, margin, r float64) bool {
	lo, hi := margin, 1-margin
	if x < lo || x > hi || y < lo || y > hi {
		return false
	}
	cx := min(max(x, lo+r), hi-r)
	cy := min(max(y, lo+r), hi-r)
	dx, dy := x-cx, y-cy
	return dx*dx+dy*dy <= r*r
}

// AppIcon renders the icon as a size×size PNG.
func AppIcon(size int) []byte {
	const ss = 4 // supersampling per axis
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	// The mark spans 18 of its 24 units vertically; it fills 56% of the icon.
	scale := 0.56 / 18
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var bg, fg int
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					u := (float64(px) + (float64(sx)+0.5)/ss) / float64(size)
					v := (float64(py) + (float64(sy)+0.5)/ss) / float64(size)
					if !inRoundedSquare(u, v, 0.098, 0.18) {
						continue
					}
					bg++
					if inPolygon(12+(u-0.5)/scale, 12+(v-0.5)/scale, house) {
						fg++
					}
				}
			}
			if bg == 0 {
				continue
			}
			// Blend the white mark over the blue, then apply coverage as alpha.
			mix := func(b, f uint8) uint8 {
				return uint8((int(b)*(bg-fg) + int(f)*fg) / bg)
			}
			img.SetNRGBA(px, py, color.NRGBA{
				R: mix(iconBG.R, iconFG.R), G: mix(iconBG.G, iconFG.G), B: mix(iconBG.B, iconFG.B),
				A: uint8(255 * bg / (ss * ss)),
			})
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	_ = enc.Encode(&buf, img)
	return buf.Bytes()
}
