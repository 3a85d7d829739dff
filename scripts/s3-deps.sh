#!/usr/bin/env bash
# Installs the Versity S3 gateway (versitygw), the S3-compatible server the
# tests and scripts/cluster.sh run on loopback, into .cache/bin (about a
# minute the first time, cached after), and prints its path.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=v1.8.0
BIN="$PWD/.cache/bin"
if [ ! -x "$BIN/versitygw" ]; then
	echo "installing versitygw $VERSION into $BIN" >&2
	GOBIN="$BIN" GOFLAGS= go install "github.com/versity/versitygw/cmd/versitygw@$VERSION" >&2
fi
echo "$BIN/versitygw"
