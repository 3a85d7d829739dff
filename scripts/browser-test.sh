#!/usr/bin/env bash
# Browser tests of the web frontend: builds the server from this repo, then
# runs tests/browser with node's test runner (playwright-core driving
# Debian's chromium against the real server on the embedded defaults).
# BROWSER_REDIS_ADDRS=host:port gives every server that Redis (a prefix of
# its own each); arguments name test files (default: all).
# Run scripts/browser-deps.sh once first. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d tests/browser/node_modules/playwright-core ]; then
	echo "browser-test: tests/browser/node_modules is missing: running scripts/browser-deps.sh"
	bash scripts/browser-deps.sh
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== go build ./cmd/server"
go build -o "$work/aimeeting" ./cmd/server
export AIMEETING_BIN="$work/aimeeting"

echo "== node --test tests/browser"
cd tests/browser
# One file at a time: each starts its own server and chromium (2 cores).
node --test --test-concurrency=1 "$@"
