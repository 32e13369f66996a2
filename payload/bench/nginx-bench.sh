# nginx-bench.sh: sourced by the HTTP benchmarks (http-vs-wrk.sh,
# http-wake.sh): one nginx serving a 4050-byte file on 127.0.0.1, pinned
# to CPU 0.  Needs $top.  Sets url, RUN_DIR, LUA8 (a wrk script
# pipelining 8 requests), and ticks (nginx's worker's CPU in clock ticks,
# hz a second).  Exits 1 when nginx does not start.
O=${O:-$top/out}
mkdir -p "$O/test-run"
. "$top/payload/tests/lib/servers.sh"
trap servers_stop EXIT INT TERM
docroot=$RUN_DIR/www
mkdir -p "$docroot"
head -c 4050 /dev/zero | tr '\0' 'x' >"$docroot/index.html"
NGINX_TASKSET="taskset -c 0"
nginx_start "$docroot" || exit 1
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
ticks() { awk '{ print $14 + $15 }' "/proc/$wpid/stat"; }
hz=$(getconf CLK_TCK)
