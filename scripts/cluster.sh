#!/usr/bin/env bash
# A local AI-Meeting cluster for development and load tests, on loopback:
# N server processes (default 3) sharing their own MariaDB, Redis and S3
# object store and nothing else (each has its own data dir), behind nginx,
# each supervised (restarted 1 s after it dies, like a container restart
# policy). Nothing shared with the test services: its own mariadbd (port
# 3390, datadir under $STATE_DIR), redis-server (6390), object store
# (versitygw on 9390, bucket under $STATE_DIR/s3) and nginx (8088, prefix
# under $STATE_DIR).
#
#   scripts/cluster.sh [up]              start, print the URL, run until Ctrl-C (stops everything)
#   scripts/cluster.sh chaos kill-app I  kill -9 instance I (1..N); its supervisor restarts it
#   scripts/cluster.sh chaos restart-redis | restart-db | restart-s3   shut the service down; it is restarted
#   scripts/cluster.sh status            what runs
#
# Settings (environment): N=3 HTTP_PORT=8088 APP_PORT=18081 (instance I listens on
# APP_PORT+I-1) REDIS_PORT=6390 DB_PORT=3390 S3_PORT=9390 STATE_DIR=/tmp/aimeeting-cluster
# BIN (a built server; default: go build) KEEP_DATA=1 (keep the database between runs)
# RESTART_DELAY=1. Every other variable (AI_PROVIDER, AI_OPENAI_*, LOG_LEVEL, ...)
# reaches the servers as configuration; "{i}" in AI_OPENAI_BASE_URL becomes the
# instance number, so a fake model can tell the instances apart.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-3}
HTTP_PORT=${HTTP_PORT:-8088}
APP_PORT=${APP_PORT:-18081}
REDIS_PORT=${REDIS_PORT:-6390}
DB_PORT=${DB_PORT:-3390}
S3_PORT=${S3_PORT:-9390}
S3_ACCESS=aimeeting-cluster
S3_SECRET=aimeeting-cluster-secret
STATE_DIR=${STATE_DIR:-/tmp/aimeeting-cluster}
RESTART_DELAY=${RESTART_DELAY:-1}
DB_SOCKET=$STATE_DIR/mysqld.sock

log() { printf '[cluster] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

pid_of() { cat "$STATE_DIR/pids/$1" 2>/dev/null || true; }

chaos() {
	case "${1:-}" in
	kill-app)
		local i=${2:?instance number} pid
		pid=$(pid_of "app$i")
		[ -n "$pid" ] || die "no pid for app$i"
		log "kill -9 app$i (pid $pid)"
		kill -9 "$pid"
		;;
	restart-redis)
		log "redis: SHUTDOWN (append-only file fsynced); the supervisor restarts it"
		redis-cli -p "$REDIS_PORT" shutdown >/dev/null 2>&1 || true
		;;
	restart-db)
		log "mariadb: shutdown; the supervisor restarts it"
		mariadb-admin --no-defaults --socket="$DB_SOCKET" -uroot shutdown
		;;
	restart-s3)
		local pid
		pid=$(pid_of s3)
		[ -n "$pid" ] || die "no pid for the object store"
		log "object store: kill (pid $pid); the supervisor restarts it"
		kill -TERM "$pid"
		;;
	*) die "chaos kill-app I | restart-redis | restart-db | restart-s3" ;;
	esac
}

status() {
	for f in "$STATE_DIR"/pids/*; do
		[ -e "$f" ] || continue
		local pid; pid=$(cat "$f")
		if kill -0 "$pid" 2>/dev/null; then echo "$(basename "$f") running (pid $pid)"; else echo "$(basename "$f") down"; fi
	done
}

need() { # need CMD PACKAGE
	if ! command -v "$1" >/dev/null 2>&1; then
		[ "$(id -u)" = 0 ] || die "$1 missing: apt-get install $2"
		log "installing $2"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" >/dev/null ||
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" >/dev/null; }
	fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_for() { # wait_for WHAT SECONDS CMD...
	local what=$1 secs=$2; shift 2
	for _ in $(seq 1 $((secs * 5))); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.2
	done
	die "timed out waiting for $what (logs: $STATE_DIR/logs)"
}

# supervise NAME CMD...: runs CMD, restarting it RESTART_DELAY s after it exits,
# until the cluster stops. The pid of the current run is in pids/NAME.
supervise() {
	local name=$1; shift
	while [ ! -e "$STATE_DIR/stopping" ]; do
		"$@" >>"$STATE_DIR/logs/$name.log" 2>&1 &
		echo $! >"$STATE_DIR/pids/$name"
		local rc=0
		wait $! || rc=$?
		[ -e "$STATE_DIR/stopping" ] && break
		log "$name exited (status $rc); restarting in ${RESTART_DELAY}s"
		sleep "$RESTART_DELAY"
	done
}

stop_all() {
	trap - INT TERM EXIT
	touch "$STATE_DIR/stopping"
	log "stopping"
	local name pid
	# Front to back: nginx, the servers (graceful), then Redis and MariaDB.
	for name in nginx $(for i in $(seq 1 "$N"); do echo "app$i"; done) redis s3; do
		pid=$(pid_of "$name")
		[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
	done
	sleep 0.5
	mariadb-admin --no-defaults --socket="$DB_SOCKET" -uroot shutdown 2>/dev/null || true
	wait || true
	log "stopped"
}

up() {
	need mariadbd mariadb-server
	need redis-server redis-server
	need nginx nginx-light
	for p in "$HTTP_PORT" "$REDIS_PORT" "$DB_PORT" "$S3_PORT" $(seq "$APP_PORT" $((APP_PORT + N - 1))); do
		port_free "$p" || die "port $p is in use (another cluster? set the *_PORT variables)"
	done
	if [ "${KEEP_DATA:-}" != 1 ]; then rm -rf "$STATE_DIR"; fi
	mkdir -p "$STATE_DIR"/{logs,pids,redis,nginx,s3/aimeeting}
	rm -f "$STATE_DIR/stopping" "$STATE_DIR"/pids/*
	trap 'stop_all; exit 0' INT TERM
	trap stop_all EXIT # also when start-up fails

	if [ -n "${BIN:-}" ]; then BIN=$(realpath "$BIN"); fi
	if [ -z "${BIN:-}" ]; then
		BIN=$STATE_DIR/aimeeting
		log "building $BIN"
		CGO_ENABLED=0 go build -o "$BIN" ./cmd/server
	fi

	# MariaDB, dedicated: own datadir, port and socket, root without password on loopback.
	if [ ! -d "$STATE_DIR/mysql/mysql" ]; then
		mariadb-install-db --no-defaults --user=root --datadir="$STATE_DIR/mysql" \
			--auth-root-authentication-method=normal --skip-test-db >"$STATE_DIR/logs/mariadb-install.log" 2>&1 ||
			die "mariadb-install-db failed: $STATE_DIR/logs/mariadb-install.log"
	fi
	supervise mariadb mariadbd --no-defaults --user=root --datadir="$STATE_DIR/mysql" --bind-address=127.0.0.1 \
		--port="$DB_PORT" --socket="$DB_SOCKET" --pid-file="$STATE_DIR/mysqld.pid" \
		--character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
		--innodb-buffer-pool-size=256M --max-connections=500 --innodb-flush-log-at-trx-commit=1 &
	wait_for "MariaDB on $DB_PORT" 60 mariadb --no-defaults -h127.0.0.1 -P"$DB_PORT" -uroot -e 'SELECT 1'
	mariadb --no-defaults -h127.0.0.1 -P"$DB_PORT" -uroot -e 'CREATE DATABASE IF NOT EXISTS aimeeting CHARACTER SET utf8mb4'
	log "MariaDB up on 127.0.0.1:$DB_PORT"

	# Redis, dedicated, with an append-only file so a restart keeps the flights.
	supervise redis redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$STATE_DIR/redis" \
		--appendonly yes --appendfsync everysec --save "" --daemonize no &
	wait_for "Redis on $REDIS_PORT" 30 redis-cli -p "$REDIS_PORT" ping
	log "Redis up on 127.0.0.1:$REDIS_PORT"

	# The object store, dedicated: the Versity S3 gateway serving a directory
	# (bucket "aimeeting"), installed with go install on first use.
	local gw
	gw=$(bash scripts/s3-deps.sh)
	supervise s3 "$gw" --access "$S3_ACCESS" --secret "$S3_SECRET" --port "127.0.0.1:$S3_PORT" --quiet posix "$STATE_DIR/s3" &
	wait_for "object store on $S3_PORT" 30 bash -c "exec 3<>/dev/tcp/127.0.0.1/$S3_PORT"
	log "object store up on 127.0.0.1:$S3_PORT (bucket aimeeting)"

	local urls=() i port base_url
	for i in $(seq 1 "$N"); do
		port=$((APP_PORT + i - 1))
		base_url=${AI_OPENAI_BASE_URL:-https://api.openai.com/v1}
		# In the state dir: a ./application.yaml of the checkout must not
		# override the binary's embedded defaults.
		supervise "app$i" env -C "$STATE_DIR" \
			SERVER_HOST=127.0.0.1 SERVER_PORT="$port" SERVER_TRUSTED_PROXIES=127.0.0.1 DATA_DIR="$STATE_DIR/data$i" \
			STORAGE_URL="s3://aimeeting?endpoint=http://127.0.0.1:$S3_PORT&region=us-east-1&use_path_style=true" \
			AWS_ACCESS_KEY_ID="$S3_ACCESS" AWS_SECRET_ACCESS_KEY="$S3_SECRET" AWS_REGION=us-east-1 \
			DATABASE_DRIVER=mysql DATABASE_DSN="root@tcp(127.0.0.1:$DB_PORT)/aimeeting" \
			REDIS_ADDRS="127.0.0.1:$REDIS_PORT" XUNZHI_AGENT_AI_SINGLEFLIGHT_MODE="${XUNZHI_AGENT_AI_SINGLEFLIGHT_MODE:-hybrid}" \
			XUNZHI_AGENT_AI_SINGLEFLIGHT_INSTANCE_ID="app$i" AI_OPENAI_BASE_URL="${base_url//\{i\}/$i}" \
			"$BIN" &
		# The first instance runs the migrations alone.
		if [ "$i" = 1 ]; then
			wait_for "app1 on $port" 60 "$BIN" --healthcheck "http://127.0.0.1:$port/readyz"
		fi
		urls+=("http://127.0.0.1:$port")
	done
	for i in $(seq 1 "$N"); do
		wait_for "app$i" 60 "$BIN" --healthcheck "${urls[$((i - 1))]}/readyz"
	done
	log "$N servers up: ${urls[*]}"

	# nginx: deploy/nginx.conf with the upstream, port and paths of this cluster.
	local servers=""
	for u in "${urls[@]}"; do servers+="        server ${u#http://} max_fails=1 fail_timeout=5s;\n"; done
	awk -v servers="$servers" -v port="$HTTP_PORT" -v dir="$STATE_DIR/nginx" '
		/^[ \t]*server [a-z0-9.-]+:[0-9]+/ { if (!done) { printf "%s", servers; done = 1 } next }
		/^[ \t]*listen 80;/ { print "        listen 127.0.0.1:" port ";"; next }
		/^pid / { print "pid " dir "/nginx.pid;"; next }
		/access_log/ { print "    access_log " dir "/access.log;"; next }
		/error_log/ { print "    error_log " dir "/error.log warn;"; next }
		{ print }' deploy/nginx.conf >"$STATE_DIR/nginx/nginx.conf"
	nginx -t -q -p "$STATE_DIR/nginx" -e "$STATE_DIR/nginx/error.log" -c "$STATE_DIR/nginx/nginx.conf"
	supervise nginx nginx -p "$STATE_DIR/nginx" -e "$STATE_DIR/nginx/error.log" -c "$STATE_DIR/nginx/nginx.conf" -g 'daemon off;' &
	wait_for "nginx on $HTTP_PORT" 30 "$BIN" --healthcheck "http://127.0.0.1:$HTTP_PORT/healthz"

	echo "cluster: instances $(IFS=,; echo "${urls[*]}")"
	echo "cluster: url http://127.0.0.1:$HTTP_PORT"
	log "up: http://127.0.0.1:$HTTP_PORT (state and logs in $STATE_DIR; Ctrl-C stops everything)"
	# Wait for Ctrl-C (the supervisors run until then).
	while true; do wait || true; sleep 1; done
}

case "${1:-up}" in
up) up ;;
chaos) shift; chaos "$@" ;;
status) status ;;
*) die "usage: $0 [up | chaos kill-app I | chaos restart-redis | chaos restart-db | status]" ;;
esac
