package doctexttest

import (
	"bytes"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/doctext/resumecorpus"
)

// Photo returns a photo-like JPEG of a page showing lines (see PDF): the
// page rendered at 300 dpi by pdftoppm, rotated 1.5 degrees, on grey paper
// with noise. Without pdftoppm it skips tb, or fails it under CI=true.
func Photo(tb testing.TB, lines ...string) []byte {
	tb.Helper()
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		msg := "pdftoppm is not installed: run bash scripts/ocr-deps.sh"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	dir := tb.TempDir()
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, PDF(tb, lines...), 0o600); err != nil {
		tb.Fatal(err)
	}
	if out, err := exec.Command("pdftoppm", "-r", "300", "-gray", "-png", "-singlefile", in, filepath.Join(dir, "p")).CombinedOutput(); err != nil {
		tb.Fatalf("pdftoppm: %v: %s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "p.png"))
	if err != nil {
		tb.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		tb.Fatal(err)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, resumecorpus.Degrade(img, 1.5, 8, 1), &jpeg.Options{Quality: 80}); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}
