#!/usr/bin/env bash
# Ensures the services the tests need are installed and running on loopback:
# MariaDB (3306), Redis (6379) and a 3-master Redis Cluster (7000-7002); and
# that nginx is installed (not started: tests run their own).
# Installs missing packages with apt-get (needs root). Idempotent.
set -euo pipefail

log() { printf '[services] %s\n' "$*" >&2; }

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

apt_updated=""
need_pkg() { # need_pkg CMD PACKAGE...
	if ! command -v "$1" >/dev/null 2>&1; then
		shift
		if [ -z "$apt_updated" ]; then
			log "apt-get update"
			$SUDO apt-get update -qq
			apt_updated=1
		fi
		log "installing $*"
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
	fi
}

wait_for() { # wait_for DESCRIPTION CMD...
	local what=$1; shift
	for _ in $(seq 1 60); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.5
	done
	log "timed out waiting for $what"
	return 1
}

need_pkg redis-server redis-server
need_pkg redis-cli redis-tools
need_pkg mariadbd mariadb-server
need_pkg mariadb mariadb-client
need_pkg nginx nginx-light # the deploy test checks deploy/nginx.conf with nginx -t

# MariaDB
if ! mariadb -uroot -h127.0.0.1 -e 'SELECT 1' >/dev/null 2>&1; then
	log "starting MariaDB"
	$SUDO mkdir -p /run/mysqld && $SUDO chown mysql:mysql /run/mysqld 2>/dev/null || true
	if [ ! -d /var/lib/mysql/mysql ]; then
		$SUDO mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
	fi
	$SUDO start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql
	wait_for "MariaDB" mariadb -uroot -h127.0.0.1 -e 'SELECT 1' || {
		# A fresh install lets root in only over the socket: allow TCP without a password.
		mariadb -uroot -e "ALTER USER 'root'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD(''); FLUSH PRIVILEGES;" || true
		wait_for "MariaDB over TCP" mariadb -uroot -h127.0.0.1 -e 'SELECT 1'
	}
fi
if ! mariadb -uroot -h127.0.0.1 -e 'SELECT 1' >/dev/null 2>&1; then
	mariadb -uroot -e "ALTER USER 'root'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD(''); FLUSH PRIVILEGES;"
fi
log "MariaDB up: $(mariadb -uroot -h127.0.0.1 -N -e 'SELECT VERSION()')"

# Redis single node
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
	log "starting Redis on 6379"
	$SUDO mkdir -p /var/lib/redis /var/log/redis
	redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
		--dir /var/lib/redis --logfile /var/log/redis/ci.log
	wait_for "Redis" redis-cli -p 6379 ping
fi
log "Redis up on 6379"

# Redis Cluster: 3 masters on 7000-7002, state kept under $CLUSTER_DIR.
CLUSTER_DIR=${CLUSTER_DIR:-/tmp/aimeeting-redis-cluster}
cluster_ok() { redis-cli -p 7000 cluster info 2>/dev/null | grep -q 'cluster_state:ok'; }
if ! cluster_ok; then
	log "starting Redis Cluster on 7000-7002"
	for port in 7000 7001 7002; do
		redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
	done
	rm -rf "$CLUSTER_DIR" && mkdir -p "$CLUSTER_DIR"
	for port in 7000 7001 7002; do
		mkdir -p "$CLUSTER_DIR/$port"
		redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --cluster-enabled yes \
			--cluster-config-file "$CLUSTER_DIR/$port/nodes.conf" --cluster-node-timeout 5000 \
			--save "" --appendonly no --dir "$CLUSTER_DIR/$port" --logfile "$CLUSTER_DIR/$port/redis.log"
		wait_for "Redis $port" redis-cli -p "$port" ping
	done
	redis-cli --cluster create 127.0.0.1:7000 127.0.0.1:7001 127.0.0.1:7002 --cluster-replicas 0 --cluster-yes >/dev/null
	wait_for "cluster_state:ok" cluster_ok
fi
log "Redis Cluster up on 7000-7002"
