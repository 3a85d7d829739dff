package resumecorpus

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// File is one generated resume file.
type File struct {
	// Name is the file name, e.g. "zh-chromium-noto-sans.pdf".
	Name string
	// Path is where it was written.
	Path string
	// Lang is the resume's language: "zh" or "en".
	Lang string
	// Producer names the program and settings that made it.
	Producer string
	// Scan reports an image (photo or image-only PDF) that only OCR reads.
	Scan bool
	// Source is the text the file shows, in reading order.
	Source string
}

// Missing is a producer that could not run because a program is missing.
type Missing struct {
	Producer string
	// Program is what is not installed; Package the Debian package.
	Program, Package string
}

// producer makes one or more files of a resume into dir.
type producer struct {
	name    string
	program string // must be on PATH
	pkg     string // Debian package that brings it
	make    func(ctx context.Context, r Resume, dir, out string) error
	scan    bool
	base    string // a scan is made from this producer's PDF
}

// Generate writes every file of the corpus into dir and returns them, with
// the producers that were skipped because their program is missing. An
// error means a present producer failed.
func Generate(ctx context.Context, dir string) ([]File, []Missing, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	producers := []producer{
		{name: "chromium-noto-sans", program: "chromium", pkg: "chromium fonts-noto-cjk", make: chromium("Noto Sans CJK SC", false)},
		{name: "chromium-noto-serif", program: "chromium", pkg: "chromium fonts-noto-cjk", make: chromium("Noto Serif CJK SC", false)},
		{name: "chromium-dejavu", program: "chromium", pkg: "chromium fonts-dejavu", make: chromium("DejaVu Sans", false)},
		{name: "chromium-2col", program: "chromium", pkg: "chromium fonts-noto-cjk", make: chromium("Noto Sans CJK SC", true)},
		{name: "libreoffice", program: "soffice", pkg: "libreoffice-writer", make: libreoffice(false)},
		{name: "libreoffice-2col", program: "soffice", pkg: "libreoffice-writer", make: libreoffice(true)},
		{name: "xelatex", program: "xelatex", pkg: "texlive-xetex texlive-lang-chinese", make: xelatex},
		{name: "ps2pdf", program: "ps2pdf", pkg: "ghostscript poppler-utils", make: ps2pdf, base: "chromium-noto-sans"},
		{name: "scan-pdf", program: "pdftoppm", pkg: "poppler-utils", make: scan(false), scan: true, base: "chromium-noto-sans"},
		{name: "photo-jpeg", program: "pdftoppm", pkg: "poppler-utils", make: scan(true), scan: true, base: "chromium-noto-sans"},
	}
	var files []File
	var missing []Missing
	for _, r := range Resumes {
		made := map[string]string{} // producer → path
		for _, p := range producers {
			if _, err := exec.LookPath(p.program); err != nil {
				if r.Lang == Resumes[0].Lang {
					missing = append(missing, Missing{p.name, p.program, p.pkg})
				}
				continue
			}
			if p.name == "ps2pdf" {
				if _, err := exec.LookPath("pdftocairo"); err != nil {
					missing = append(missing, Missing{p.name, "pdftocairo", "poppler-utils"})
					continue
				}
			}
			in := ""
			if p.base != "" {
				if in = made[p.base]; in == "" {
					continue // its base was not made
				}
			}
			ext := ".pdf"
			if p.name == "photo-jpeg" {
				ext = ".jpg"
			}
			name := r.Lang + "-" + p.name + ext
			out := filepath.Join(dir, name)
			if _, err := os.Stat(out); err != nil {
				work, err := os.MkdirTemp("", "resumecorpus-*")
				if err != nil {
					return nil, nil, err
				}
				// Written aside and renamed, so a failed run leaves no
				// partial file for the next run to take as made.
				part := out + ".part"
				err = p.make(ctx, r, work, outOrBase(part, in))
				os.RemoveAll(work)
				if err == nil {
					err = os.Rename(part, out)
				}
				if err != nil {
					os.Remove(part)
					return nil, nil, fmt.Errorf("%s: %w", name, err)
				}
			}
			made[p.name] = out
			files = append(files, File{Name: name, Path: out, Lang: r.Lang, Producer: p.name, Scan: p.scan, Source: r.Text()})
		}
	}
	return files, missing, nil
}

// outOrBase passes a derived producer both paths, joined by a NUL.
func outOrBase(out, base string) string {
	if base == "" {
		return out
	}
	return out + "\x00" + base
}

func splitOut(s string) (out, base string) {
	out, base, _ = strings.Cut(s, "\x00")
	return out, base
}

func run(ctx context.Context, dir string, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tail := string(out)
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return fmt.Errorf("%s: %w\n%s", name, err, tail)
	}
	return nil
}

// HTML renders r as a page with the given font family, in one column or
// with a sidebar (a table, which both Chromium and LibreOffice lay out).
func HTML(r Resume, font string, twoCol bool) string {
	var b strings.Builder
	lang := "zh-CN"
	if r.Lang == "en" {
		lang = "en"
	}
	fmt.Fprintf(&b, `<!DOCTYPE html><html lang=%q><head><meta charset="utf-8"><title>%s</title><style>
@page { size: A4; margin: 16mm 18mm; }
body { font-family: %q; font-size: 10.5pt; line-height: 1.45; color: #111; }
h1 { font-size: 22pt; margin: 0 0 2pt 0; }
h2 { font-size: 12.5pt; margin: 10pt 0 3pt 0; border-bottom: 1px solid #888; }
p { margin: 0 0 2pt 0; }
.headline { font-size: 12pt; color: #333; margin-bottom: 6pt; }
td { vertical-align: top; padding: 0 8pt 0 0; }
</style></head><body>
`, lang, html.EscapeString(r.Name), font)
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p class=\"headline\">%s</p>\n", html.EscapeString(r.Name), html.EscapeString(r.Headline))
	blocks := func(bs []Block) {
		for _, bl := range bs {
			fmt.Fprintf(&b, "<h2>%s</h2>\n", html.EscapeString(bl.Title))
			for _, l := range bl.Lines {
				fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(l))
			}
		}
	}
	if twoCol {
		b.WriteString(`<table style="width:100%; border-collapse:collapse"><tr><td style="width:34%">` + "\n")
		blocks(r.Side)
		b.WriteString(`</td><td>` + "\n")
		blocks(r.Main)
		b.WriteString("</td></tr></table>\n")
	} else {
		blocks(r.Side)
		blocks(r.Main)
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

func chromium(font string, twoCol bool) func(context.Context, Resume, string, string) error {
	return func(ctx context.Context, r Resume, dir, out string) error {
		in := filepath.Join(dir, "resume.html")
		if err := os.WriteFile(in, []byte(HTML(r, font, twoCol)), 0o644); err != nil {
			return err
		}
		return run(ctx, dir, "chromium", "--headless", "--no-sandbox", "--disable-gpu",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--no-first-run", "--user-data-dir="+filepath.Join(dir, "profile"),
			"--no-pdf-header-footer", "--print-to-pdf="+out, "file://"+in)
	}
}

func libreoffice(twoCol bool) func(context.Context, Resume, string, string) error {
	return func(ctx context.Context, r Resume, dir, out string) error {
		font := "DejaVu Sans"
		if r.Lang == "zh" {
			font = "Noto Sans CJK SC"
		}
		in := filepath.Join(dir, "resume.html")
		if err := os.WriteFile(in, []byte(HTML(r, font, twoCol)), 0o644); err != nil {
			return err
		}
		if err := run(ctx, dir, "soffice", "--headless", "--norestore",
			"-env:UserInstallation=file://"+filepath.Join(dir, "profile"),
			"--infilter=HTML (StarWriter)", "--convert-to", "pdf:writer_pdf_Export",
			"--outdir", dir, in); err != nil {
			return err
		}
		return os.Rename(filepath.Join(dir, "resume.pdf"), out)
	}
}

var texEscaper = strings.NewReplacer(`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`,
	`#`, `\#`, `_`, `\_`, `{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`)

// TeX renders r as a xelatex document (xeCJK with Noto CJK for Chinese).
func TeX(r Resume) string {
	var b strings.Builder
	b.WriteString("\\documentclass[10.5pt]{article}\n\\usepackage[a4paper,margin=18mm]{geometry}\n")
	b.WriteString("\\usepackage{fontspec}\n")
	if r.Lang == "zh" {
		b.WriteString("\\usepackage{xeCJK}\n\\setCJKmainfont{Noto Serif CJK SC}\n\\setCJKsansfont{Noto Sans CJK SC}\n")
	}
	b.WriteString("\\setlength{\\parindent}{0pt}\\setlength{\\parskip}{2pt}\\pagestyle{empty}\n\\begin{document}\n")
	fmt.Fprintf(&b, "{\\LARGE\\bfseries %s}\\par\n{\\large %s}\\par\n", texEscaper.Replace(r.Name), texEscaper.Replace(r.Headline))
	for _, bl := range append(append([]Block(nil), r.Side...), r.Main...) {
		fmt.Fprintf(&b, "\\section*{%s}\n", texEscaper.Replace(bl.Title))
		for _, l := range bl.Lines {
			fmt.Fprintf(&b, "%s\\par\n", texEscaper.Replace(l))
		}
	}
	b.WriteString("\\end{document}\n")
	return b.String()
}

func xelatex(ctx context.Context, r Resume, dir, out string) error {
	if err := os.WriteFile(filepath.Join(dir, "resume.tex"), []byte(TeX(r)), 0o644); err != nil {
		return err
	}
	if err := run(ctx, dir, "xelatex", "-interaction=nonstopmode", "-halt-on-error", "resume.tex"); err != nil {
		return err
	}
	return os.Rename(filepath.Join(dir, "resume.pdf"), out)
}

// ps2pdf sends the base PDF through PostScript: pdftocairo -ps, then
// Ghostscript. (pdftops writes Type 3 fonts without a text map, which no
// reader can turn back into text; a PostScript file printed from an
// application keeps its fonts, as Cairo's does.)
func ps2pdf(ctx context.Context, _ Resume, dir, outs string) error {
	out, base := splitOut(outs)
	ps := filepath.Join(dir, "resume.ps")
	if err := run(ctx, dir, "pdftocairo", "-ps", base, ps); err != nil {
		return err
	}
	return run(ctx, dir, "ps2pdf", ps, out)
}

// scan renders the base PDF's first page and degrades it like a scanner or
// a phone camera: grey paper, a 1-2 degree rotation, Gaussian noise, JPEG
// compression. photo writes the JPEG itself; otherwise an image-only PDF.
func scan(photo bool) func(context.Context, Resume, string, string) error {
	return func(ctx context.Context, _ Resume, dir, outs string) error {
		out, base := splitOut(outs)
		dpi, angle, sigma, seed := "200", 1.2, 8.0, int64(1)
		if photo {
			dpi, angle, sigma, seed = "200", -1.7, 14.0, 2
		}
		root := filepath.Join(dir, "page")
		if err := run(ctx, dir, "pdftoppm", "-r", dpi, "-gray", "-png", "-f", "1", "-l", "1", "-singlefile", base, root); err != nil {
			return err
		}
		raw, err := os.ReadFile(root + ".png")
		if err != nil {
			return err
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			return err
		}
		g := Degrade(img, angle, sigma, seed)
		var jb bytes.Buffer
		if err := jpeg.Encode(&jb, g, &jpeg.Options{Quality: 80}); err != nil {
			return err
		}
		if photo {
			return os.WriteFile(out, jb.Bytes(), 0o644)
		}
		return os.WriteFile(out, ImagePDF(jb.Bytes(), g.Bounds().Dx(), g.Bounds().Dy()), 0o644)
	}
}
