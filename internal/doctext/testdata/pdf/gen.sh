#!/usr/bin/env bash
# Regenerates the PDFs in this directory from en.txt and zh.txt with real
# producers: chromium --print-to-pdf (Skia) with several fonts, LibreOffice
# (--convert-to pdf), Cairo (pdftocairo -pdf), Ghostscript (pdftocairo -ps,
# then ps2pdf) and, when installed, xelatex with xeCJK and pdflatex. Each
# PDF's expected text is written next to it as NAME.txt, in
# reading order (a two-column file reads the left column, then the right).
# Needs: chromium, libreoffice-writer, poppler-utils, ghostscript,
# fonts-noto-cjk, fonts-dejavu-core; optionally texlive-xetex and
# texlive-lang-chinese. Sections of the sources are separated by
# "==" lines; in the two-column variants the first section is the header, the
# second the left column and the third the right column.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# html SRC FONT COLUMNS > HTML
html() {
	python3 - "$1" "$2" "$3" <<'PY'
import html, sys
src, font, cols = sys.argv[1], sys.argv[2], int(sys.argv[3])
secs = [[l for l in s.strip().split("\n") if l] for s in open(src, encoding="utf-8").read().split("==\n")]
def para(lines, first_big=False):
    out = []
    for i, l in enumerate(lines):
        tag = "h1" if first_big and i == 0 else "p"
        out.append(f"<{tag}>{html.escape(l)}</{tag}>")
    return "\n".join(out)
style = f"body{{font-family:'{font}';font-size:11pt;margin:0}} h1{{font-size:20pt;margin:0 0 4pt}} p{{margin:0 0 5pt}}"
if cols == 2:
    style += " .cols{display:flex;gap:36pt;margin-top:12pt} .left{width:30%} .right{width:70%}"
    body = para(secs[0], True) + f'<div class="cols"><div class="left">{para(secs[1])}</div><div class="right">{para(secs[2])}</div></div>'
elif cols == 3:  # two columns as a table, for LibreOffice (no flex layout)
    body = para(secs[0], True) + ('<table style="margin-top:12pt"><tr><td style="width:30%;vertical-align:top;padding-right:36pt">'
        + para(secs[1]) + '</td><td style="vertical-align:top">' + para(secs[2]) + '</td></tr></table>')
else:
    body = para([l for s in secs for l in s], True)
print(f'<!DOCTYPE html><html><head><meta charset="utf-8"><style>{style}</style></head><body>{body}</body></html>')
PY
}

# want SRC > TXT: the text in reading order.
want() { grep -v '^==$' "$1"; }

chrome() { # chrome SRC FONT COLUMNS OUT
	html "$1" "$2" "$3" > "$tmp/in.html"
	chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$tmp/profile" \
		--no-pdf-header-footer --print-to-pdf="$4" "file://$tmp/in.html" 2>/dev/null
	want "$1" > "${4%.pdf}.txt"
}

chrome en.txt 'DejaVu Sans' 1 chrome-dejavu-en.pdf
chrome en.txt 'Noto Sans CJK SC' 2 chrome-sans-en-2col.pdf
chrome zh.txt 'Noto Sans CJK SC' 1 chrome-sans-zh.pdf
chrome zh.txt 'Noto Serif CJK SC' 1 chrome-serif-zh.pdf
chrome zh.txt 'Noto Sans CJK SC' 2 chrome-sans-zh-2col.pdf
chrome en.txt 'DejaVu Serif' 2 chrome-dejavu-en-2col.pdf

for variant in en zh en-2col; do
	lang=${variant%-2col}; cols=1; [ $variant = en-2col ] && cols=3
	font='DejaVu Serif'; [ $lang = zh ] && font='Noto Serif CJK SC'
	html $lang.txt "$font" $cols > "$tmp/libreoffice-$variant.html"
	# Writer's HTML filter, not Writer/Web's: the latter puts a blank page
	# with a hidden title first.
	soffice --headless -env:UserInstallation=file://$tmp/lo --infilter="HTML (StarWriter)" \
		--convert-to pdf:writer_pdf_Export \
		--outdir "$tmp" "$tmp/libreoffice-$variant.html" > /dev/null 2>&1
	mv "$tmp/libreoffice-$variant.pdf" libreoffice-$variant.pdf
	want $lang.txt > libreoffice-$variant.txt
done

for lang in en zh; do
	src=chrome-dejavu-en.pdf; [ $lang = zh ] && src=chrome-sans-zh.pdf
	pdftocairo -pdf $src cairo-$lang.pdf
	want $lang.txt > cairo-$lang.txt
	pdftocairo -ps $src "$tmp/$lang.ps"
	ps2pdf "$tmp/$lang.ps" ps2pdf-$lang.pdf
	want $lang.txt > ps2pdf-$lang.txt
done
# tex SRC ENGINE > TEX: one paragraph per line, no hyphenation.
tex() {
	python3 - "$1" "$2" <<'PY'
import sys
src, engine = sys.argv[1], sys.argv[2]
lines = [l for l in open(src, encoding="utf-8").read().split("\n") if l and l != "=="]
esc = {"\\": r"\textbackslash{}", "%": r"\%", "&": r"\&", "_": r"\_", "#": r"\#", "$": r"\$",
       "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
pre = r"\documentclass[11pt]{article}\usepackage[margin=2cm]{geometry}"
if engine == "xelatex":
    pre += r"\usepackage{xeCJK}\setCJKmainfont{Noto Serif CJK SC}"
else:
    esc["|"] = r"\textbar{}"  # Computer Modern's OT1 "|" is an em dash
body = "\n\n".join(r"\noindent " + "".join(esc.get(c, c) for c in l) for l in lines)
pre += r"\hyphenpenalty=10000\exhyphenpenalty=10000\raggedright\pagestyle{empty}\setlength{\parskip}{4pt}"
print(pre + r"\begin{document}" + body + r"\end{document}")
PY
}

latex() { # latex SRC ENGINE OUT
	tex "$1" "$2" > "$tmp/doc.tex"
	(cd "$tmp" && "$2" -interaction=nonstopmode doc.tex > /dev/null)
	mv "$tmp/doc.pdf" "$3"
	want "$1" > "${3%.pdf}.txt"
}

if command -v xelatex > /dev/null; then
	latex zh.txt xelatex xelatex-zh.pdf
	latex en.txt xelatex xelatex-en.pdf
	latex en.txt pdflatex pdflatex-en.pdf
fi
ls -l *.pdf
