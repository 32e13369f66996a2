# netns.sh: a private LAN of network namespaces for agent tests (sourced).
# One hub namespace holds a bridge; netns_add puts a node namespace on it
# through a veth pair.  Nothing touches the host's own interfaces.
# Needs root and iproute2.  netns_cleanup (trap it) kills what netns_spawn
# started and deletes every namespace.

NETNS_P=bb$$
NETNS_NODES=
NETNS_PIDS=

netns_available() {
	[ "$(id -u)" = 0 ] && ip netns add "${NETNS_P}probe" 2>/dev/null &&
		ip netns del "${NETNS_P}probe"
}

# netns_hub: creates the hub namespace with bridge br0 (multicast on, for
# mDNS; no snooping so every port sees every group).
netns_hub() {
	ip netns add "${NETNS_P}hub" || return 1
	ip -n "${NETNS_P}hub" link add br0 type bridge || return 1
	ip -n "${NETNS_P}hub" link set br0 type bridge mcast_snooping 0 \
		2>/dev/null
	ip -n "${NETNS_P}hub" link set br0 up
	ip -n "${NETNS_P}hub" link set lo up
}

# netns_ifid ADDR: ADDR's last two bytes in hex, which name a node's
# veth ends and make its MAC.
netns_ifid() { echo "$1" | awk -F. '{printf "%02x%02x", $3, $4}'; }

# netns_add NAME ADDR: namespace ${NETNS_P}NAME with eth0 = ADDR/16 on the
# hub, plus lo.  The veth gets a fixed MAC from ADDR so ids are stable.
netns_add() {
	_nsi=$(netns_ifid "$2")
	ip netns add "$NETNS_P$1" || return 1
	NETNS_NODES="$NETNS_NODES $1"
	ip link add "h$NETNS_P$_nsi" type veth peer name "e$NETNS_P$_nsi" ||
		return 1
	ip link set "h$NETNS_P$_nsi" netns "${NETNS_P}hub"
	ip -n "${NETNS_P}hub" link set "h$NETNS_P$_nsi" master br0 up
	netns_eth0 "$1" "$2" "e$NETNS_P$_nsi"
}

# netns_cable ADDR up|down: plugs in or pulls the cable of the node
# netns_add put on the hub with ADDR (its veth's hub end).
netns_cable() {
	_nsi=$(netns_ifid "$1")
	ip -n "${NETNS_P}hub" link set "h$NETNS_P$_nsi" "$2"
}

# netns_add_link NAME ADDR HOSTIF: namespace ${NETNS_P}NAME as netns_add
# makes it, but on no hub: its eth0's peer is HOSTIF, left in the host's
# namespace for a LAN of someone else's (make run's RUN_LAN_LINK) to take.
netns_add_link() {
	ip netns add "$NETNS_P$1" || return 1
	NETNS_NODES="$NETNS_NODES $1"
	ip link add "$3" type veth peer name "e$NETNS_P$1" || return 1
	netns_eth0 "$1" "$2" "e$NETNS_P$1"
}

# netns_eth0 NAME ADDR IF: host interface IF becomes NAME's eth0 = ADDR/16
# with a MAC from ADDR's last two bytes, up, with lo and multicast.
netns_eth0() {
	_nsn=$1 _nsa=$2
	_nsi=$(netns_ifid "$_nsa")
	ip link set "$3" netns "$NETNS_P$_nsn" || return 1
	ip -n "$NETNS_P$_nsn" link set "$3" name eth0
	ip -n "$NETNS_P$_nsn" link set eth0 address "52:54:00:bb:${_nsi%??}:${_nsi#??}"
	ip -n "$NETNS_P$_nsn" addr add "$_nsa/16" dev eth0
	ip -n "$NETNS_P$_nsn" link set eth0 up
	ip -n "$NETNS_P$_nsn" link set lo up
	# Multicast out of eth0 (mDNS) rather than nowhere.
	ip -n "$NETNS_P$_nsn" route add 224.0.0.0/4 dev eth0 2>/dev/null
	return 0
}

# netns_exec NAME CMD...: runs CMD in the namespace.
netns_exec() {
	_nsn=$1
	shift
	ip netns exec "$NETNS_P$_nsn" "$@"
}

# netns_spawn NAME LOG CMD...: starts CMD in the background in the
# namespace, output to LOG; sets NETNS_LAST_PID and remembers it.
netns_spawn() {
	_nsn=$1 _nsl=$2
	shift 2
	ip netns exec "$NETNS_P$_nsn" "$@" >"$_nsl" 2>&1 &
	NETNS_LAST_PID=$!
	NETNS_PIDS="$NETNS_PIDS $NETNS_LAST_PID"
}

netns_cleanup() {
	for _nsp in $NETNS_PIDS; do kill "$_nsp" 2>/dev/null; done
	for _nsp in $NETNS_PIDS; do
		_nsk=30
		while kill -0 "$_nsp" 2>/dev/null && [ $_nsk -gt 0 ]; do
			sleep 0.1
			_nsk=$((_nsk - 1))
		done
		kill -9 "$_nsp" 2>/dev/null
	done
	NETNS_PIDS=
	for _nsn in $NETNS_NODES; do
		# Whatever still runs inside (workload children, servers).
		for _nsp in $(ip netns pids "$NETNS_P$_nsn" 2>/dev/null); do
			kill -9 "$_nsp" 2>/dev/null
		done
		ip netns del "$NETNS_P$_nsn" 2>/dev/null
	done
	ip netns del "${NETNS_P}hub" 2>/dev/null
	NETNS_NODES=
}

# netns_nginx NAME ADDR PORT DOCROOT DIR: nginx in the namespace bound to
# ADDR:PORT (servers.sh's settings), data under DIR; stub_status on
# /nginx_status.
netns_nginx() {
	_nsn=$1 _nsa=$2 _nsport=$3 _nsroot=$4 _nsd=$5
	mkdir -p "$_nsd/tmp"
	cat >"$_nsd/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $_nsd/nginx.pid;
error_log $_nsd/error.log warn;
events { worker_connections 4096; }
http {
	access_log off;
	keepalive_requests 1000000;
	keepalive_timeout 60s;
	client_body_temp_path $_nsd/tmp/body;
	proxy_temp_path $_nsd/tmp/proxy;
	fastcgi_temp_path $_nsd/tmp/fastcgi;
	uwsgi_temp_path $_nsd/tmp/uwsgi;
	scgi_temp_path $_nsd/tmp/scgi;
	server {
		listen $_nsa:$_nsport;
		root $_nsroot;
		location = /nginx_status { stub_status; }
	}
}
CONF
	netns_spawn "$_nsn" "$_nsd/stdout.log" nginx -c "$_nsd/nginx.conf" \
		-e "$_nsd/error.log"
	wait_for 20 netns_exec "$_nsn" curl -sf "http://$_nsa:$_nsport/nginx_status"
}

# netns_docroot DIR: the suite's static page (4050 bytes), the 1000-file
# tree (10 per directory) and a CGI hello under DIR.
netns_docroot() {
	_nsr=$1
	mkdir -p "$_nsr/static" "$_nsr/cgi-bin"
	head -c 4050 /dev/zero | tr '\0' 'x' >"$_nsr/static/4050.html"
	for _nsd in $(seq -w 0 99); do
		mkdir -p "$_nsr/tree/d$_nsd"
		for _nsf in 0 1 2 3 4 5 6 7 8 9; do
			echo "<html>d$_nsd f$_nsf</html>" >"$_nsr/tree/d$_nsd/f$_nsf.html"
		done
	done
	printf '#!/bin/sh\nprintf "Content-Type: text/plain\\r\\n\\r\\nHello, world\\n"\n' \
		>"$_nsr/cgi-bin/hello"
	chmod +x "$_nsr/cgi-bin/hello"
}

# netns_mariadb NAME ADDR DIR: MariaDB in the namespace bound to ADDR:3306
# (servers.sh's settings), fresh datadir under DIR; user bench / password
# bench owns database bench.
netns_mariadb() {
	_nsn=$1 _nsa=$2 _nsd=$3
	# Its own tmpdir, as mariadb_start's (servers.sh says why).
	mkdir -p "$_nsd/tmp"
	mariadb-install-db --no-defaults --user=root --datadir="$_nsd/data" \
		--tmpdir="$_nsd/tmp" \
		--auth-root-authentication-method=normal --skip-test-db \
		>"$_nsd/install.log" 2>&1 || return 1
	netns_spawn "$_nsn" "$_nsd/stdout.log" mariadbd --no-defaults \
		--user=root --datadir="$_nsd/data" --tmpdir="$_nsd/tmp" \
		--socket="$_nsd/sock" \
		--port=3306 --bind-address="$_nsa" --pid-file="$_nsd/pid" \
		--log-error="$_nsd/error.log" --skip-log-bin \
		--innodb-buffer-pool-size=64M --max-connections=500 \
		--innodb-flush-log-at-trx-commit=2
	wait_for 60 mariadb-admin --no-defaults --socket="$_nsd/sock" -uroot \
		ping || return 1
	mariadb --no-defaults --socket="$_nsd/sock" -uroot <<'SQL'
DELETE FROM mysql.global_priv WHERE User = '';
CREATE USER 'bench'@'%' IDENTIFIED BY 'bench';
CREATE DATABASE bench;
GRANT ALL ON *.* TO 'bench'@'%';
FLUSH PRIVILEGES;
SQL
}
