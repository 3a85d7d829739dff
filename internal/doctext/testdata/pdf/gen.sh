#!/usr/bin/env bash
# Regenerates the PDFs in this directory from en.txt and zh.txt with real
# producers: chromium --print-to-pdf (Skia) with several fonts, LibreOffice
# (--convert-to pdf), Cairo (pdftocairo -pdf) and Ghostscript (pdftocairo -ps,
# then ps2pdf). Each PDF's expected text is written next to it as NAME.txt, in
# reading order (a two-column file reads the left column, then the right).
# Needs: chromium, libreoffice-writer, poppler-utils, ghostscript,
# fonts-noto-cjk, fonts-dejavu-core. Sections of the sources are separated by
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

for lang in en zh; do
	font='DejaVu Serif'; [ $lang = zh ] && font='Noto Serif CJK SC'
	html $lang.txt "$font" 1 > "$tmp/libreoffice-$lang.html"
	soffice --headless -env:UserInstallation=file://$tmp/lo --convert-to pdf:writer_web_pdf_Export \
		--outdir "$tmp" "$tmp/libreoffice-$lang.html" > /dev/null 2>&1
	mv "$tmp/libreoffice-$lang.pdf" libreoffice-$lang.pdf
	want $lang.txt > libreoffice-$lang.txt
done

for lang in en zh; do
	src=chrome-dejavu-en.pdf; [ $lang = zh ] && src=chrome-sans-zh.pdf
	pdftocairo -pdf $src cairo-$lang.pdf
	want $lang.txt > cairo-$lang.txt
	pdftocairo -ps $src "$tmp/$lang.ps"
	ps2pdf "$tmp/$lang.ps" ps2pdf-$lang.pdf
	want $lang.txt > ps2pdf-$lang.txt
done
ls -l *.pdf
