# bench-servers.sh: sourced by the benchmarks of payload/bench: the private
# servers they measure against, set up one way for all of them (each
# pinned to CPU 0, the client under test goes on CPU 1).  Needs $top.
# Sourcing starts nothing; it sets RUN_DIR (payload/tests/lib/servers.sh)
# and stops every server the script started when it exits.
O=${O:-$top/out}
. "$top/payload/tests/lib/servers.sh"
trap servers_stop EXIT INT TERM

# bench_nginx: one nginx serving a 4050-byte file on 127.0.0.1.  Sets url,
# LUA8 (a wrk script pipelining 8 requests) and ticks (nginx's worker's
# CPU in clock ticks, hz a second).  Exits 1 when nginx does not start.
bench_nginx() {
	docroot=$RUN_DIR/www
	mkdir -p "$docroot"
	head -c 4050 /dev/zero | tr '\0' 'x' >"$docroot/index.html"
	NGINX_TASKSET="taskset -c 0"
	nginx_start "$docroot" >/dev/null || exit 1
	url=http://127.0.0.1:$NGINX_PORT/index.html
	# wrk pipelines the requests its script returns as one string.
	LUA8=$RUN_DIR/pipeline8.lua
	cat >"$LUA8" <<'LUA'
init = function(args)
	local r = {}
	for i = 1, 8 do r[i] = wrk.format(nil, "/index.html") end
	req = table.concat(r)
end
request = function() return req end
LUA
	# nginx's one worker, whose CPU ticks are read around each run.
	sleep 0.2
	wpid=$(pgrep -P "$(cat "$NGINX_DIR/nginx.pid")" | head -1)
	[ -n "$wpid" ] || { echo "no nginx worker" >&2; exit 1; }
	hz=$(getconf CLK_TCK)
}
ticks() { awk '{ print $14 + $15 }' "/proc/$wpid/stat"; }

# bench_mariadb ROWS: MariaDB with sysbench's table sbtest1 of ROWS rows.
# Sets SB: `sysbench oltp_point_select` with the connection options (add
# the run's own).  Exits 1 when MariaDB or the table does not come up.
bench_mariadb() {
	mariadb_start >/dev/null || exit 1
	taskset -a -p -c 0 "$(cat "$RUN_DIR/mariadb/mysqld.pid")" >/dev/null
	SB="sysbench oltp_point_select --db-driver=mysql
		--mysql-host=127.0.0.1 --mysql-port=$MARIADB_PORT
		--mysql-user=bench --mysql-password=bench --mysql-db=bench
		--tables=1 --table-size=$1"
	$SB prepare >/dev/null || exit 1
}

# bench_smtp_sink [FLAG...]: Postfix's smtp-sink on 127.0.0.1 (backlog
# 512), its stdout in $RUN_DIR/sink.out (-c: a running count of delivered
# mail).  Sets SINK_PORT.  Exits 1 when it does not listen.
bench_smtp_sink() {
	SINK_PORT=$(free_port)
	taskset -c 0 smtp-sink -u postfix "$@" "127.0.0.1:$SINK_PORT" 512 \
		>"$RUN_DIR/sink.out" 2>"$RUN_DIR/sink.err" &
	SERVER_PIDS="$SERVER_PIDS $!"
	wait_for 10 sh -c "ss -Htln 'sport = :$SINK_PORT' | grep -q ." || {
		cat "$RUN_DIR/sink.err" >&2
		exit 1
	}
}
