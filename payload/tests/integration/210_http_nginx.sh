#!/bin/sh
# 210_http_nginx.sh: `benchboot http` against a real nginx: keep-alive,
# no keep-alive, pipelining, the closed loop's naps (and --no-batch), the
# 1000-file tree, gzip-chunked responses, open-loop rate, and every
# request the client sent counted by nginx.
set -u
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/payload/tests/lib/servers.sh"
trap servers_stop EXIT INT TERM

BB="$TARGET_RUN $BENCHBOOT"
docroot=$RUN_DIR/www
mkdir -p "$docroot"
head -c 4050 /dev/zero | tr '\0' 'x' >"$docroot/index.html"
# The reference server's tree: 1000 files, 10 per directory,
# tree/A/B/C.html (configs/server/server-start).
for a in 0 1 2 3 4 5 6 7 8 9; do
	for b in 0 1 2 3 4 5 6 7 8 9; do
		mkdir -p "$docroot/tree/$a/$b"
		for c in 0 1 2 3 4 5 6 7 8 9; do
			echo "<html><body>$a$b$c</body></html>" \
				>"$docroot/tree/$a/$b/$c.html"
		done
	done
done

if ! nginx_start "$docroot" "gzip on; gzip_min_length 0;"; then
	not_ok "nginx starts"
	tap_done
	exit 1
fi
url=http://127.0.0.1:$NGINX_PORT

# j FILE FILTER: one value from a workload record.
j() { jq -r "$2" "$1"; }

# run NAME ARGS...: one --json run into $RUN_DIR/NAME.json, with nginx's
# request count before and after (stub_status counts its own request).
run() {
	_name=$1
	shift
	_s0=$(nginx_requests)
	$BB http --json "$@" >"$RUN_DIR/$_name.json" 2>"$RUN_DIR/$_name.err"
	_rc=$?
	_s1=$(nginx_requests)
	NGINX_DELTA=$((_s1 - _s0 - 1))
	check_eq "$_name: exits 0" "$_rc" 0
	[ $_rc = 0 ] || sed 's/^/# /' "$RUN_DIR/$_name.err"
}

# counts NAME CONNS PIPELINE: the client's counts agree with nginx's.
counts() {
	_f=$RUN_DIR/$1.json
	_req=$(j "$_f" .counters.requests)
	_sent=$(j "$_f" .counters.sent)
	# The client awaits the answers to what it sent before it exits,
	# so nginx has counted every request, pipelined ones too.
	check_eq "$1: nginx served exactly the requests sent" \
		"$NGINX_DELTA" "$_sent"
	check "$1: requests ($_req) <= sent ($_sent) <= requests + in flight" \
		[ "$_req" -gt 0 -a "$_req" -le "$_sent" -a \
		  "$_sent" -le $((_req + $2 * $3)) ]
	check_eq "$1: histogram holds every response" \
		"$(j "$_f" .latency.count)" "$_req"
	check_eq "$1: no errors" "$(j "$_f" '[.errors[]] | add')" 0
}

run keepalive -t 2 -c 8 -d 1s "$url/index.html"
f=$RUN_DIR/keepalive.json
check_eq "record schema" "$(j "$f" .schema)" "benchboot.workload/1"
check_eq "record workload" "$(j "$f" .workload)" "http"
check_eq "record mode" "$(j "$f" .params.mode)" "closed"
check_eq "record error classes" "$(j "$f" '.errors | keys | join(",")')" \
	"connect,parse,read,status_4xx,status_5xx,status_other,timeout,write"
check_eq "record histogram shape" \
	"$(j "$f" '.latency | [.unit, .lowest, .highest, .sub_buckets] |
		join(",")')" \
	"ns,1000,60000000000,128"
check "keep-alive: 8 connections for the whole run" \
	[ "$(j "$f" .counters.connections)" = 8 ]
check "keep-alive: bytes are 4050-byte bodies plus headers" \
	[ "$(j "$f" '.counters.bytes / .counters.requests | floor')" -gt 4050 ]
counts keepalive 8 1

run no_keepalive -t 1 -c 4 -d 1s --no-keepalive "$url/index.html"
f=$RUN_DIR/no_keepalive.json
check "no keep-alive: one connection per request" \
	[ "$(j "$f" '.counters.connections - .counters.requests | fabs')" \
	  -le 4 ]
counts no_keepalive 4 1

run pipeline -t 1 -c 4 -d 1s --pipeline 8 "$url/index.html"
counts pipeline 4 8

# 16 connections on one thread: the closed loop naps between batches
# (docs/http.md, issue 19) and still counts exactly; --no-batch and
# fewer than 8 connections per thread do not nap.
run batch -t 1 -c 16 -d 1s "$url/index.html"
counts batch 16 1
f=$RUN_DIR/batch.json
check "batch: naps taken ($(j "$f" .counters.naps))" \
	[ "$(j "$f" .counters.naps)" -gt 0 ]
check_eq "batch: params.batch" "$(j "$f" .params.batch)" true
run batch_p8 -t 1 -c 16 -d 1s --pipeline 8 "$url/index.html"
counts batch_p8 16 8
run nobatch -t 1 -c 16 -d 1s --no-batch "$url/index.html"
counts nobatch 16 1
f=$RUN_DIR/nobatch.json
check_eq "--no-batch: no naps" "$(j "$f" .counters.naps)" 0
check_eq "--no-batch: params.batch" "$(j "$f" .params.batch)" false
check_eq "4 connections a thread: no naps" \
	"$(j "$RUN_DIR/keepalive.json" .counters.naps)" 0

# The tree, a path chosen at random per request: none is missing.
run tree -t 2 -c 4 -d 2s "$url/tree/{0..9}/{0..9}/{0..9}.html"
counts tree 4 1
check_eq "tree: 1000 paths" "$(j "$RUN_DIR/tree.json" .params.paths)" 1000

# gzip turns nginx's responses chunked.
hdr=$(curl -s -D - -o /dev/null -H 'Accept-Encoding: gzip' "$url/index.html")
check "nginx answers gzip with a chunked body" \
	sh -c "echo \"\$1\" | grep -qi '^transfer-encoding: chunked'" sh "$hdr"
run chunked -t 1 -c 4 -d 1s -H 'Accept-Encoding: gzip' "$url/index.html"
counts chunked 4 1
check "chunked: bodies are gzip-small" \
	[ "$(j "$RUN_DIR/chunked.json" \
		'.counters.bytes / .counters.requests | floor')" -lt 1000 ]

# Open loop: the asked rate is held within 1 %.
run rate -t 2 -c 8 -d 3s --rate 2000 "$url/index.html"
f=$RUN_DIR/rate.json
check_eq "rate: mode open" "$(j "$f" .params.mode)" "open"
got=$(j "$f" '.counters.requests / .elapsed_s')
check "rate: 2000/s asked, $got/s done (within 1 %)" \
	[ "$(j "$f" '(.counters.requests / .elapsed_s - 2000) | fabs < 20')" \
	  = true ]
counts rate 8 1

# Warm-up: loads the server but is not counted; the measured interval
# is -d long (not -d + --warmup; a loaded CI machine may wake late).
run warmup -t 1 -c 2 -d 1s --warmup 1s "$url/index.html"
f=$RUN_DIR/warmup.json
check "warmup: nginx served more than the measured requests" \
	[ "$NGINX_DELTA" -gt $(($(j "$f" .counters.sent) + 100)) ]
check "warmup: measured interval is 1 s ($(j "$f" .elapsed_s))" \
	[ "$(j "$f" '.elapsed_s >= 1 and .elapsed_s < 1.5')" = true ]
check_eq "warmup: echoed in params" "$(j "$f" .params.warmup_s)" 1

# A URL file: full URLs, bare paths and patterns.
printf '# two pages\n%s\n/tree/0/{0..9}/0.html\n' "$url/index.html" \
	>"$RUN_DIR/urls"
run urlfile -t 1 -c 2 -d 1s --urls "$RUN_DIR/urls"
check_eq "urlfile: 11 paths" "$(j "$RUN_DIR/urlfile.json" .params.paths)" 11
counts urlfile 2 1

# HEAD: no bodies.
run head -t 1 -c 2 -d 1s -m HEAD "$url/index.html"
check "HEAD: no bodies read" \
	[ "$(j "$RUN_DIR/head.json" \
		'.counters.bytes / .counters.requests | floor')" -lt 1000 ]
counts head 2 1

# Only correct answers are throughput: half the URLs 404, so requests
# counts the 200s, status_4xx the 404s, and responses both (as nginx).
run status -t 1 -c 2 -d 1s "$url/missing" "$url/index.html"
f=$RUN_DIR/status.json
tenths=$(j "$f" '.errors.status_4xx / .counters.responses * 10 | floor')
check "status: 404s counted as status_4xx (about half: $tenths/10)" \
	[ "$tenths" -ge 4 -a "$tenths" -le 5 ]
check_eq "status: requests are the 200s only" \
	"$(j "$f" '.counters.responses - .errors.status_4xx')" \
	"$(j "$f" .counters.requests)"
check_eq "status: the histogram holds the 200s only" \
	"$(j "$f" .latency.count)" "$(j "$f" .counters.requests)"
check_eq "status: nginx served every request sent" "$NGINX_DELTA" \
	"$(j "$f" .counters.sent)"
check_eq "status: no other errors" \
	"$(j "$f" '.errors.parse + .errors.read + .errors.connect +
		.errors.status_5xx + .errors.status_other')" 0
check "status: first error names the class" \
	grep -q '"first_error": *"status_4xx: HTTP 404"' "$f"

# --label names the load in the record (a step keeps http:LABEL apart).
run label -t 1 -c 1 -d 200ms --label cgi "$url/index.html"
check_eq "label: in the record" "$(j "$RUN_DIR/label.json" .label)" cgi
err=$($BB http --label 'a b' "$url/" 2>&1)
check_eq "label: a bad one is a usage error (exit 2)" "$?" 2

# The human summary names what happened.
out=$($BB http -t 1 -c 2 -d 1s "$url/index.html")
check "summary shows requests, latency and errors" \
	sh -c 'echo "$1" | grep -q "requests" && echo "$1" | grep -q "p99.9" &&
		echo "$1" | grep -q "errors"' sh "$out"

# Usage errors exit 2 and say what is wrong.
err=$($BB http -c 1 -t 2 "$url/" 2>&1)
check_eq "fewer connections than threads: exit 2" "$?" 2
check "... and says so" sh -c 'echo "$1" | grep -q "fewer connections"' \
	sh "$err"
err=$($BB http -d 1s "$url/{1..3" 2>&1)
check_eq "broken pattern: exit 2" "$?" 2
check "... names the URL" sh -c 'echo "$1" | grep -q "never closed"' \
	sh "$err"
tap_done
