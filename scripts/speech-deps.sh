#!/usr/bin/env bash
# Installs the speech engines the tests and the local recogniser use:
# pocketsphinx (the libpocketsphinx3 runtime, loaded with dlopen; no -dev
# headers needed) with its US English model, espeak-ng (test speech) and
# sox (extra upload formats). Idempotent: apt-get runs only when something
# is missing. Debian/Ubuntu only.
set -euo pipefail

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in pocketsphinx pocketsphinx-en-us espeak-ng sox; do
	have_pkg "$pkg" || need+=("$pkg")
done
if [ ${#need[@]} -eq 0 ]; then
	echo "speech-deps: all installed"
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "speech-deps: missing ${need[*]} and no apt-get: install them by hand" >&2
	exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "speech-deps: installing ${need[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
