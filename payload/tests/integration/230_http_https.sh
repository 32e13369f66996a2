#!/bin/sh
# 230_http_https.sh: `benchboot http --engine=curl` (libcurl over mbedTLS)
# against nginx serving the same file over http and https (self-signed
# certificate): counts against stub_status, TLS verification failures
# counted as connect errors, and the epoll engine refusing https.
# harness: parallel
set -u
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/payload/tests/lib/servers.sh"
trap servers_stop EXIT INT TERM

BB="$TARGET_RUN $BENCHBOOT"
j() { jq -r "$2" "$1"; }
docroot=$RUN_DIR/www
mkdir -p "$docroot"
head -c 4050 /dev/zero | tr '\0' 'z' >"$docroot/index.html"

if ! openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
	-keyout "$RUN_DIR/key.pem" -out "$RUN_DIR/cert.pem" \
	>"$RUN_DIR/openssl.log" 2>&1; then
	not_ok "openssl makes a self-signed certificate"
	sed 's/^/# /' "$RUN_DIR/openssl.log"
	tap_done
	exit 1
fi
TLS_PORT=$(free_port)
if ! nginx_start "$docroot" "listen 127.0.0.1:$TLS_PORT ssl;
	ssl_certificate $RUN_DIR/cert.pem;
	ssl_certificate_key $RUN_DIR/key.pem;"; then
	not_ok "nginx starts"
	tap_done
	exit 1
fi
check "nginx answers https" curl -skf -o /dev/null \
	"https://127.0.0.1:$TLS_PORT/index.html"

# run NAME ARGS...: one --json run with nginx's count around it.
run() {
	_n=$1
	shift
	_s0=$(nginx_requests)
	$BB http --json "$@" >"$RUN_DIR/$_n.json" 2>"$RUN_DIR/$_n.err"
	_rc=$?
	NGINX_DELTA=$(($(nginx_requests) - _s0 - 1))
	check_eq "$_n: exits 0" "$_rc" 0
	[ $_rc = 0 ] || sed 's/^/# /' "$RUN_DIR/$_n.err"
}

for scheme in http https; do
	port=$NGINX_PORT
	[ $scheme = https ] && port=$TLS_PORT
	run curl_$scheme -t 1 -c 4 -d 1s --engine=curl -k \
		"$scheme://127.0.0.1:$port/index.html"
	f=$RUN_DIR/curl_$scheme.json
	req=$(j "$f" .counters.requests)
	sent=$(j "$f" .counters.sent)
	check "curl $scheme: req <= nginx <= sent ($req $NGINX_DELTA $sent)" \
		[ "$req" -gt 0 -a "$req" -le "$NGINX_DELTA" -a \
		  "$NGINX_DELTA" -le "$sent" ]
	check_eq "curl $scheme: no errors" "$(j "$f" '[.errors[]] | add')" 0
	check_eq "curl $scheme: engine echoed" "$(j "$f" .params.engine)" curl
	check_eq "curl $scheme: 4 keep-alive connections" \
		"$(j "$f" .counters.connections)" 4
	check "curl $scheme: heads and bodies counted" \
		[ "$(j "$f" '.counters.bytes / .counters.requests | floor')" \
		  -gt 4050 ]
done

# Behind an agent's gate (issue 17 item 3) the curl engine opens its
# keep-alive connections, TLS handshakes included, with one request each
# before it says ready; the window then opens none.
ngst() { curl -sf "http://127.0.0.1:$NGINX_PORT/nginx_status" |
	awk 'NR == 3 { print $1, $3 }'; }
set -- $(ngst)
a0=$1 r0=$2
python3 "$TOP/payload/tests/lib/gate.py" 1 \
	"curl -sf http://127.0.0.1:$NGINX_PORT/nginx_status |
	awk 'NR == 3 { print \$1, \$3 }' >'$RUN_DIR/ready.st'" "$BENCHBOOT" \
	$BB http --json -t 2 -c 4 -d 1s --engine=curl -k \
	"https://127.0.0.1:$TLS_PORT/index.html" >"$RUN_DIR/gated.json" \
	2>"$RUN_DIR/gated.err"
check_eq "gated https: exits 0" "$?" 0 ||
	sed 's/^/# /' "$RUN_DIR/gated.err"
set -- $(cat "$RUN_DIR/ready.st") $(ngst)
f=$RUN_DIR/gated.json
check_eq "gated https: 4 connections and 4 requests before the start" \
	"$(($1 - a0 - 1)) $(($2 - r0 - 1))" "4 4"
check_eq "gated https: no connection opened in the window" \
	"$(($3 - $1 - 1)) $(j "$f" .counters.connections)" "0 0"
check "gated https: requests counted ($(j "$f" .counters.requests))" \
	[ "$(j "$f" .counters.requests)" -gt 0 ]
check_eq "gated https: no errors" "$(j "$f" '[.errors[]] | add')" 0

# https picks the curl engine by itself; without -k the self-signed
# certificate fails verification: connect errors, paced.
run verify -t 1 -c 2 -d 1s "https://127.0.0.1:$TLS_PORT/index.html"
f=$RUN_DIR/verify.json
check_eq "verify: no responses" "$(j "$f" .counters.requests)" 0
check "verify: connect errors ($(j "$f" .errors.connect))" \
	[ "$(j "$f" .errors.connect)" -gt 0 -a \
	  "$(j "$f" .errors.connect)" -le 400 ]
check "verify: first error is about the certificate" \
	sh -c 'jq -r .first_error "$1" | grep -qi "ssl\|certificate\|peer"' \
	sh "$f"

err=$($BB http --engine=epoll -d 1s "https://127.0.0.1:$TLS_PORT/" 2>&1)
check_eq "epoll engine refuses https: exit 2" "$?" 2
check "... saying --engine=curl" \
	sh -c 'echo "$1" | grep -q "engine=curl"' sh "$err"
tap_done
