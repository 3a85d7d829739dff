#!/usr/bin/env bash
# Installs what the browser tests need, idempotently: Debian's chromium (never
# a downloaded browser build), espeak-ng (the fake microphone's voice and the
# TTS provider) and the node packages of tests/browser (npm ci, from the lock).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
# Fonts so that pages and screenshots show text (CJK included).
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || missing+=(fonts-noto-cjk)
dpkg -s fonts-dejavu-core >/dev/null 2>&1 || missing+=(fonts-dejavu-core)
if [ ${#missing[@]} -gt 0 ]; then
	echo "browser-deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The recogniser of the live-transcription test (pocketsphinx) and the TTS
# provider: their own idempotent scripts, where the project has them.
for dep in scripts/speech-deps.sh scripts/tts-deps.sh; do
	if [ -f "$dep" ]; then bash "$dep"; fi
done

cd tests/browser
if [ ! -d node_modules/playwright-core ] || ! npm ls --silent >/dev/null 2>&1; then
	# playwright-core never downloads a browser; we drive /usr/bin/chromium.
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
fi
