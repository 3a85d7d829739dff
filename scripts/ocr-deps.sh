#!/usr/bin/env bash
# Installs what reading resumes needs and what the resume corpus benchmark
# (internal/doctext, docs/resumes.md) produces its files with: tesseract
# with English and Simplified Chinese (OCR of photos and scans),
# poppler-utils (pdftotext, pdftocairo, pdftoppm, pdftops), ghostscript
# (ps2pdf), LibreOffice Writer, xelatex with xeCJK, the Noto CJK and
# DejaVu fonts, and imagemagick. Chromium comes from browser-deps.sh.
# Idempotent: apt-get runs only when something is missing. Debian/Ubuntu only.
set -euo pipefail

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in poppler-utils tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim ghostscript \
	libreoffice-writer fonts-noto-cjk fonts-dejavu imagemagick texlive-xetex texlive-lang-chinese; do
	have_pkg "$pkg" || need+=("$pkg")
done
if [ ${#need[@]} -eq 0 ]; then
	echo "ocr-deps: all installed"
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "ocr-deps: missing ${need[*]} and no apt-get: install them by hand" >&2
	exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "ocr-deps: installing ${need[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
