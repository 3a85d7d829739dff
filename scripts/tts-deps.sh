#!/usr/bin/env bash
# Installs what speech synthesis and its tests need, when missing:
# espeak-ng (the local TTS provider), lame (MP3 output), sox (optional audio
# tooling) and pocketsphinx with its US English model (the TTS round-trip
# test transcribes espeak-ng's speech). apt-get update runs only when
# something is missing. Idempotent; needs root or sudo.
set -euo pipefail

log() { printf '[tts-deps] %s\n' "$*" >&2; }

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

missing=()
need() { # need PACKAGE CHECK...
	local pkg=$1; shift
	if ! "$@" >/dev/null 2>&1; then missing+=("$pkg"); fi
}
need espeak-ng command -v espeak-ng
need lame command -v lame
need sox command -v sox
need pocketsphinx command -v pocketsphinx_continuous
need pocketsphinx-en-us test -d /usr/share/pocketsphinx/model/en-us/en-us

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
log "installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
