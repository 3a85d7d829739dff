# AI-Meeting Go. `make run` starts the server on the embedded defaults;
# `make test` runs the whole suite, starting the services it needs.
.PHONY: run build test services cluster

run:
	go run ./cmd/server

build:
	CGO_ENABLED=0 go build -trimpath -o bin/aimeeting ./cmd/server

test:
	bash scripts/test.sh

services:
	bash scripts/services.sh

cluster:
	bash scripts/cluster.sh
