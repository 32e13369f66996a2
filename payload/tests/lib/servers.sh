# servers.sh: real servers for tests, private to one test run (sourced).
# Each *_start keeps its data under $RUN_DIR, binds 127.0.0.1 on a free
# port and records its PID; servers_stop (trap it on EXIT) stops them all.
#
# RUN_DIR is not under the checkout: nginx's workers, Postfix's daemons
# and the collector run as other users, and a checkout may sit where they
# cannot pass (/root, a mktemp -d directory: mode 0700).  The harness
# makes TEST_TMP for its run under /tmp, which every user can pass; a
# test started by hand makes its own directory in /tmp.

: "${O:=out}"
RUN_DIR=${RUN_DIR:-$(mktemp -d "${TEST_TMP:-/tmp}/benchboot-run.XXXXXX")}
RUN_DIR=$(cd "$RUN_DIR" && pwd)
# nginx workers and mariadbd may run as other users: let them in.
chmod 755 "$RUN_DIR"
SERVER_PIDS=

# as_nobody CMD...: CMD as user nobody, without groups (root only).
as_nobody() {
	setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" \
		--clear-groups -- "$@"
}
# open_to_others DIR WHO: 0 when other users can pass DIR (root only
# checks; WHO is the server that needs it); else says so, 1.  A RUN_DIR
# or docroot given from outside may be closed to them: said before the
# start, not as a server's 403 or lock-file error deep in a test.
open_to_others() {
	[ "$(id -u)" = 0 ] || return 0
	as_nobody test -x "$1" && return 0
	echo "# $1: other users cannot pass a directory above it, and $2" \
		"runs as another user; give the test a directory under /tmp" >&2
	return 1
}

# free_port: prints a TCP port nothing listens on (random, 10000 up to
# the ephemeral range).
free_port() {
	while :; do
		# Below the ephemeral range: a load test's client sockets hold
		# ports there, and a listener cannot bind one of those.
		_lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
		[ "${_lo:-0}" -gt 11000 ] 2>/dev/null || _lo=32768
		p=$((10000 + $(od -An -N2 -tu2 /dev/urandom) % (_lo - 10000)))
		ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
}

# wait_for SECONDS CMD...: polls CMD every 0.2 s; 0 once it succeeds.
wait_for() {
	_n=$(($1 * 5))
	shift
	while [ $_n -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
		_n=$((_n - 1))
	done
	return 1
}

servers_stop() {
	for _p in $SERVER_PIDS; do kill "$_p" 2>/dev/null; done
	for _p in $SERVER_PIDS; do
		_i=50
		while kill -0 "$_p" 2>/dev/null && [ $_i -gt 0 ]; do
			sleep 0.1
			_i=$((_i - 1))
		done
		kill -9 "$_p" 2>/dev/null
	done
	SERVER_PIDS=
	[ -n "${KEEP_RUN_DIR:-}" ] || rm -rf "$RUN_DIR"
}

# mariadb_start: a MariaDB server with a fresh datadir.  Sets MARIADB_PORT,
# MARIADB_SOCK; user bench / password bench owns database bench.
mariadb_start() {
	_d=$RUN_DIR/mariadb
	# A private tmpdir: a mariadbd starting with /tmp's removes every
	# #sql* file there, another test's bootstrap tables among them (seen
	# in a make test: "Unknown table 'mysql.tmp_user_nopasswd,...'").
	mkdir -p "$_d/tmp"
	MARIADB_PORT=$(free_port)
	MARIADB_SOCK=$_d/mysqld.sock
	mariadb-install-db --no-defaults --user=root --datadir="$_d/data" \
		--tmpdir="$_d/tmp" \
		--auth-root-authentication-method=normal --skip-test-db \
		>"$_d/install.log" 2>&1 || {
		echo "# mariadb-install-db failed:"; sed 's/^/#   /' "$_d/install.log"
		return 1
	}
	# free_port's port may be taken between its check and mariadbd's
	# bind (another test beside this one): one more try on a new port.
	mariadb_run || {
		grep -q 'another server running on port' \
			"$_d/error.log" 2>/dev/null || return 1
		MARIADB_PORT=$(free_port)
		echo "# port taken meanwhile; again on $MARIADB_PORT"
		mariadb_run
	} || return 1
	# install-db's anonymous ''@localhost shadows 'bench'@'%' for local
	# clients, hence both accounts.
	mariadb --no-defaults --socket="$MARIADB_SOCK" -uroot <<'SQL'
DELETE FROM mysql.global_priv WHERE User = '';
CREATE USER 'bench'@'localhost' IDENTIFIED BY 'bench';
CREATE USER 'bench'@'%' IDENTIFIED BY 'bench';
CREATE DATABASE bench;
GRANT ALL ON *.* TO 'bench'@'localhost';
GRANT ALL ON *.* TO 'bench'@'%';
FLUSH PRIVILEGES;
SQL
}

# mariadb_run: mariadbd on mariadb_start's datadir, port and socket
# (again after a kill: a test of a database that comes back).  Sets
# MARIADB_PID.
mariadb_run() {
	_md=$RUN_DIR/mariadb
	mariadbd --no-defaults --user=root --datadir="$_md/data" \
		--tmpdir="$_md/tmp" --socket="$MARIADB_SOCK" \
		--port="$MARIADB_PORT" \
		--bind-address=127.0.0.1 --pid-file="$_md/mysqld.pid" \
		--log-error="$_md/error.log" --skip-log-bin \
		--innodb-buffer-pool-size=128M --max-connections=1000 \
		--innodb-flush-log-at-trx-commit=2 &
	MARIADB_PID=$!
	SERVER_PIDS="$SERVER_PIDS $!"
	wait_for 60 mariadb-admin --no-defaults --socket="$MARIADB_SOCK" \
		-uroot ping || {
		echo "# mariadbd did not start:"; tail -20 "$_md/error.log" | sed 's/^/#   /'
		return 1
	}
}

# nginx_start DOCROOT [EXTRA_SERVER_CONF]: nginx serving DOCROOT with
# keep-alive and /nginx_status (stub_status).  Sets NGINX_PORT, NGINX_DIR.
nginx_start() {
	open_to_others "$1" "nginx's worker" || return 1
	NGINX_DIR=$RUN_DIR/nginx
	mkdir -p "$NGINX_DIR/tmp"
	NGINX_PORT=$(free_port)
	cat >"$NGINX_DIR/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $NGINX_DIR/nginx.pid;
error_log $NGINX_DIR/error.log warn;
events { worker_connections 4096; }
http {
	access_log off;
	keepalive_requests 1000000;
	keepalive_timeout 60s;
	client_body_temp_path $NGINX_DIR/tmp/body;
	proxy_temp_path $NGINX_DIR/tmp/proxy;
	fastcgi_temp_path $NGINX_DIR/tmp/fastcgi;
	uwsgi_temp_path $NGINX_DIR/tmp/uwsgi;
	scgi_temp_path $NGINX_DIR/tmp/scgi;
	server {
		listen 127.0.0.1:$NGINX_PORT;
		root $1;
		location = /nginx_status { stub_status; }
		${2:-}
	}
}
CONF
	${NGINX_TASKSET:-} nginx -c "$NGINX_DIR/nginx.conf" -e "$NGINX_DIR/error.log" &
	SERVER_PIDS="$SERVER_PIDS $!"
	wait_for 20 curl -sf "http://127.0.0.1:$NGINX_PORT/nginx_status" || {
		echo "# nginx did not start:"; sed 's/^/#   /' "$NGINX_DIR/error.log"
		return 1
	}
}

# nginx_requests: the request count nginx's stub_status reports
# (including the status requests themselves).
nginx_requests() {
	curl -sf "http://127.0.0.1:$NGINX_PORT/nginx_status" |
		awk 'NR == 3 {print $3}'
}

# collect_user DIR...: what a `benchboot collect` started here adds to its
# command line: as root (which the collector refuses without --user),
# "--user nobody", with each store DIR made nobody's and RUN_DIR (mktemp's
# 0700) passable for it; nothing otherwise.
collect_user() {
	[ "$(id -u)" = 0 ] || return 0
	chmod o+x "$RUN_DIR"
	open_to_others "$RUN_DIR" "the collector (--user nobody)" || return 1
	for d; do
		mkdir -p "$d" && chown nobody "$d"
	done
	echo "--user nobody"
}

# collect_db_start DIR: MariaDB up for a collector test, and the names
# the collector tests share: $M (a root client of the bench database),
# $D (DIR/store, the collector's --dir), $CU (collect_user's options for
# it), $DB_URL and $DB (--db as user bench, its password in DIR/pw).
# Returns non-zero when MariaDB does not start.
collect_db_start() {
	mariadb_start || return 1
	M="mariadb --no-defaults --socket=$MARIADB_SOCK -uroot -N -B bench"
	D=$1/store
	mkdir -p "$D"
	CU=$(collect_user "$D")
	echo bench >"$1/pw"
	chmod 644 "$1/pw"
	DB_URL=mysql://bench@127.0.0.1:$MARIADB_PORT/bench
	DB="--db $DB_URL --db-password-file $1/pw"
}
