#!/usr/bin/env bash
# Measures resume uploads and audio downloads through the directory store and
# through S3 (versitygw on loopback) in the same run, and prints the table
# quoted in docs/cluster.md. Needs espeak-ng (scripts/tts-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/s3-deps.sh >/dev/null
BLOB_BENCH=1 go test -count=1 -run '^TestFileStoreThroughput$' -v ./cmd/server/ | grep -E '^\|'
