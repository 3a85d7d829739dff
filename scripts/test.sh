#!/usr/bin/env bash
# The whole test suite: starts (installing when missing) MariaDB, Redis and a
# Redis Cluster, then runs gofmt, go vet and every test with the race
# detector. Under CI=true a test whose service is missing fails instead of
# skipping.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/services.sh

export TEST_MYSQL_DSN=${TEST_MYSQL_DSN:-root@tcp(127.0.0.1:3306)/}
export TEST_REDIS_ADDR=${TEST_REDIS_ADDR:-127.0.0.1:6379}
export TEST_REDIS_CLUSTER_ADDRS=${TEST_REDIS_CLUSTER_ADDRS:-127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002}
export CI=${CI:-true} # the services are up: a skip would hide a failure

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './web/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt needed on:"; echo "$unformatted"; exit 1
fi
echo "== go vet"
go vet ./...
echo "== go test -race"
go test -race -count=1 -timeout 20m "$@" ./...
