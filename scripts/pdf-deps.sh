#!/usr/bin/env bash
# Installs what the PDF tests use: poppler-utils (pdftotext, the optional
# second PDF reader, and pdftocairo for testdata/pdf/gen.sh). Regenerating
# the corpus with testdata/pdf/gen.sh also needs chromium, libreoffice-writer,
# ghostscript, fonts-noto-cjk and fonts-dejavu-core: pass --corpus.
# Idempotent: apt-get runs only when something is missing. Debian/Ubuntu only.
set -euo pipefail

pkgs=(poppler-utils)
if [ "${1:-}" = "--corpus" ]; then
	pkgs+=(chromium libreoffice-writer ghostscript fonts-noto-cjk fonts-dejavu-core)
fi
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in "${pkgs[@]}"; do
	have_pkg "$pkg" || need+=("$pkg")
done
if [ ${#need[@]} -eq 0 ]; then
	echo "pdf-deps: all installed"
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "pdf-deps: missing ${need[*]} and no apt-get: install them by hand" >&2
	exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "pdf-deps: installing ${need[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
