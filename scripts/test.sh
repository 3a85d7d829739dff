#!/usr/bin/env bash
# The whole test suite. Starts (installing with apt-get when missing) what
# the tests need: MariaDB, Redis, a Redis Cluster, the speech engines
# (pocketsphinx, espeak-ng), lame, chromium, the browser test packages and
# the OCR and PDF tools of the resume corpus (ocr-deps.sh).
# Then: gofmt, go vet, staticcheck, go test -race, every fuzz target for a
# bounded time, and the browser tests. Under CI=true a test whose service is
# missing fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/services.sh
for deps in speech-deps tts-deps browser-deps pdf-deps ocr-deps s3-deps; do
	if [ -f "scripts/$deps.sh" ]; then bash "scripts/$deps.sh"; fi
done

export TEST_MYSQL_DSN=${TEST_MYSQL_DSN:-root@tcp(127.0.0.1:3306)/}
export TEST_REDIS_ADDR=${TEST_REDIS_ADDR:-127.0.0.1:6379}
export TEST_REDIS_CLUSTER_ADDRS=${TEST_REDIS_CLUSTER_ADDRS:-127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002}
export CI=${CI:-true} # the services are up: a skip would hide a failure

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt needed on:"; echo "$unformatted"; exit 1
fi

echo "== go mod tidy -diff"
go mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }

echo "== stray files"
# Debug leftovers (dbg*, *.tmp.*) must not be committed nor lie in the tree.
stray=$(git ls-files --cached --others --exclude-standard | grep -E '(^|/)(dbg[^/]*|[^/]*\.tmp\.[^/]*)$' || true)
if [ -n "$stray" ]; then
	echo "stray debug files (delete them):"; echo "$stray"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== staticcheck"
BIN="$PWD/.cache/bin"
if [ ! -x "$BIN/staticcheck" ]; then
	GOBIN="$BIN" GOFLAGS= go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
fi
"$BIN/staticcheck" ./...

echo "== go test -race"
go test -race -count=1 -timeout 25m "$@" ./...

# Budgets are execution counts, not durations: with a duration, Go 1.26's fuzz
# coordinator can report its own end-of-run deadline as "context deadline
# exceeded" with no failing input (golang/go#75804, fixed in Go 1.27).
echo "== fuzz (${FUZZTIME:=3000x} per target)"
git grep -n -E '^func Fuzz[A-Za-z0-9_]+\(' -- '*_test.go' | while IFS=: read -r file _ decl; do
	name=$(echo "$decl" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(.*/\1/')
	pkg="./$(dirname "$file")"
	echo "-- $pkg $name"
	go test -run='^$' -fuzz="^${name}\$" -fuzztime="$FUZZTIME" "$pkg" > /tmp/fuzz-$$.log 2>&1 || { cat /tmp/fuzz-$$.log; exit 1; }
done

if [ -f scripts/browser-test.sh ]; then
	echo "== browser tests"
	bash scripts/browser-test.sh
	# The interview once more with Redis: the token, current-question and
	# replay copies, the progress and the single-flight as in a cluster.
	echo "== browser tests, interview with Redis"
	BROWSER_REDIS_ADDRS=${TEST_REDIS_ADDR:-127.0.0.1:6379} bash scripts/browser-test.sh interview.test.js interview-ux.test.js replace-resume.test.js
fi
