package resumecorpus

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
)

// Degrade returns img in grey, rotated by angle degrees about its centre
// (bilinear; the corners filled with paper), on slightly grey paper with
// Gaussian noise of the given standard deviation (in 0-255 grey levels)
// from a fixed seed, so the same call makes the same image.
func Degrade(img image.Image, angle, sigma float64, seed int64) *image.Gray {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	src := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			src.SetGray(x, y, color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray))
		}
	}
	const paper = 232.0 // a scanner's or camera's white is not 255
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	sin, cos := math.Sincos(angle * math.Pi / 180)
	cx, cy := float64(w)/2, float64(h)/2
	dst := image.NewGray(image.Rect(0, 0, w, h))
	at := func(x, y int) float64 {
		if x < 0 || y < 0 || x >= w || y >= h {
			return 255
		}
		return float64(src.Pix[y*src.Stride+x])
	}
	for y := range h {
		for x := range w {
			// The source point that lands on (x, y).
			dx, dy := float64(x)-cx, float64(y)-cy
			sx, sy := cos*dx+sin*dy+cx, -sin*dx+cos*dy+cy
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			fx, fy := sx-float64(x0), sy-float64(y0)
			v := at(x0, y0)*(1-fx)*(1-fy) + at(x0+1, y0)*fx*(1-fy) +
				at(x0, y0+1)*(1-fx)*fy + at(x0+1, y0+1)*fx*fy
			// Ink stays dark, white becomes paper; then the sensor noise.
			v = v*paper/255 + rng.NormFloat64()*sigma
			dst.Pix[y*dst.Stride+x] = uint8(math.Max(0, math.Min(255, math.Round(v))))
		}
	}
	return dst
}

// ImagePDF wraps a greyscale JPEG of w×h pixels into a one-page A4 PDF that
// holds only that image, as a scanner writes it.
func ImagePDF(jpegData []byte, w, h int) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string, stream []byte) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s", len(offsets), body)
		if stream != nil {
			b.WriteString("\nstream\n")
			b.Write(stream)
			b.WriteString("\nendstream")
		}
		b.WriteString("\nendobj\n")
	}
	b.WriteString("%PDF-1.4\n%\xE2\xE3\xCF\xD3\n")
	content := []byte("q 595 0 0 842 0 0 cm /Im0 Do Q")
	obj("<< /Type /Catalog /Pages 2 0 R >>", nil)
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", nil)
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>", nil)
	obj(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>",
		w, h, len(jpegData)), jpegData)
	obj(fmt.Sprintf("<< /Length %d >>", len(content)), content)
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}
