#!/bin/sh
# 632_collect_tls.sh: results uploaded over TLS the way the agent does
# (spool_upload_to through libcurl + mbedTLS, driven by test_spool's
# uploader mode) to `benchboot collect` behind nginx with a certificate
# from a throw-away CA, on loopback: trusted by the CA file, by a pinned
# public key alone, by both; refused with another CA, a wrong pin, no
# trust given at all, and no token; the stored result is byte-identical
# and a repeat is stored once.
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
trap servers_stop EXIT
UP="${TARGET_RUN:+$TARGET_RUN }$PAYLOAD_BUILD/tests/test_spool --upload"
BB="${TARGET_RUN:+$TARGET_RUN }$BENCHBOOT"
if ! command -v nginx >/dev/null 2>&1; then
	skip "nginx not installed (TEST_PACKAGES)"
	tap_done
	exit
fi
T=$RUN_DIR/tls
mkdir -p "$T"
# pki NAME: a CA NAME-ca.pem and, signed by it, NAME.pem for 127.0.0.1.
pki() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
		-nodes -days 2 -subj "/CN=$1 test CA" -keyout "$T/$1-ca.key" \
		-out "$T/$1-ca.pem" &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-subj "/CN=localhost" -keyout "$T/$1.key" -out "$T/$1.csr" &&
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$T/$1.ext" &&
	openssl x509 -req -in "$T/$1.csr" -CA "$T/$1-ca.pem" \
		-CAkey "$T/$1-ca.key" -CAcreateserial -days 2 \
		-extfile "$T/$1.ext" -out "$T/$1.pem"
} >"$T/openssl.log" 2>&1
# pin_of CERT: sha256//BASE64 of its public key, as curl pins it.
pin_of() {
	echo "sha256//$(openssl x509 -in "$1" -pubkey -noout |
		openssl pkey -pubin -outform der |
		openssl dgst -sha256 -binary | base64)"
}
check "a CA and a collector certificate" pki lab
check "another, unrelated CA" pki other
chmod 644 "$T"/*
PIN=$(pin_of "$T/lab.pem")
WRONG=$(pin_of "$T/other.pem")

D=$RUN_DIR/store
mkdir -p "$D"
# As root the collector needs --user: nobody, its store made nobody's.
CU=$(collect_user "$D")
CPORT=$(free_port)
$BB collect $CU --dir "$D" --listen 127.0.0.1:$CPORT --token tok \
	2>"$RUN_DIR/collect.log" &
SERVER_PIDS="$SERVER_PIDS $!"
check "collector up" wait_for 10 curl -s -o /dev/null http://127.0.0.1:$CPORT/
TPORT=$(free_port)
check "nginx terminating TLS in front of it" nginx_start "$RUN_DIR" "
		listen 127.0.0.1:$TPORT ssl;
		ssl_certificate $T/lab.pem;
		ssl_certificate_key $T/lab.key;
		client_max_body_size 64m;
		location /results/ { proxy_pass http://127.0.0.1:$CPORT; }"
# mbedTLS 2.28 matches names, not IP addresses: the URL says localhost.
U=https://localhost:$TPORT/results/

doc() { printf '{"schema":"benchboot.result/1","id":"%s","x":1}' "$1"; }
for r in ca pin both other wrongpin none notoken; do
	doc "t-$r" >"$RUN_DIR/t-$r.json"
done
# up ID CA PIN [TOKEN]: the uploader's exit status; its message in up.err.
up() {
	$UP "$U" "$RUN_DIR/$1.json" "$1" "$2" "$3" "${4:-tok}" \
		2>"$RUN_DIR/up.err"
	echo $?
}
check_eq "upload trusting the CA file: delivered" "$(up t-ca "$T/lab-ca.pem" -)" 0
check "stored byte for byte" cmp "$RUN_DIR/t-ca.json" "$D/t-ca.json"
check_eq "the same again: delivered, stored once" \
	"$(up t-ca "$T/lab-ca.pem" -)" 0
check "collector says already held" grep -q "t-ca already held" \
	"$RUN_DIR/collect.log"
check_eq "upload trusting the pinned key alone: delivered" \
	"$(up t-pin - "$PIN")" 0
check "stored byte for byte" cmp "$RUN_DIR/t-pin.json" "$D/t-pin.json"
check_eq "CA file and pin together: delivered" \
	"$(up t-both "$T/lab-ca.pem" "$PIN")" 0
check_eq "another CA: refused" "$(up t-other "$T/other-ca.pem" -)" 1
check "... the message says why: $(head -c 160 "$RUN_DIR/up.err")" \
	grep -qi "certificate\|verify\|SSL" "$RUN_DIR/up.err"
check_eq "wrong pin: refused" "$(up t-wrongpin - "$WRONG")" 1
check "... the message names the pin" grep -q "not the pinned one" \
	"$RUN_DIR/up.err"
check_eq "right CA, wrong pin: refused" \
	"$(up t-wrongpin "$T/lab-ca.pem" "$WRONG")" 1
check_eq "no CA file and no pin: the self-made CA is not trusted" \
	"$(up t-none - -)" 1
check_eq "TLS but no token: refused (401)" "$(up t-notoken "$T/lab-ca.pem" - -)" 1
check "... the message says 401" grep -q "HTTP 401" "$RUN_DIR/up.err"
check_eq "a pin on http:// is refused before connecting" \
	"$($UP "http://127.0.0.1:$CPORT/results/" "$RUN_DIR/t-none.json" \
	t-none - "$PIN" tok 2>"$RUN_DIR/up.err"; echo $?)" 1
check_eq "only the trusted uploads stored" \
	"$(ls -A "$D" | sort | tr '\n' ' ')" "t-both.json t-ca.json t-pin.json "

# The agent itself, as on the image: a controller (no clients: its steps
# are skipped, the result still written) uploads over TLS with the pin
# and a token file; with a wrong pin it keeps the result in its spool.
SUITES=$(cd "$(dirname "$0")/suites" && pwd)
echo tok >"$RUN_DIR/tokfile"
agent_up() {
	$BB agent --role=controller --id "$1" --listen 127.0.0.1:$(free_port) \
		--suite "$SUITES/quick.suite" --peers 0 --wait 1s \
		--spool "$RUN_DIR/spool-$1" --upload "$U" --pin "$2" \
		--token-file "$RUN_DIR/tokfile" --upload-deadline 4s \
		>"$RUN_DIR/agent-$1.out" 2>"$RUN_DIR/agent-$1.log"
	echo $?
}
if [ -n "${TARGET_RUN:-}" ]; then
	# An agent announces itself over mDNS, which qemu-user cannot run
	# (getifaddrs hangs there; agent.sh says the same for every agent
	# test).
	skip "the agent's own TLS upload: agents do not run under $TARGET_RUN"
	tap_done
	exit
fi
check_eq "agent upload over TLS with the pin: delivered" \
	"$(agent_up tls-agent "$PIN")" 0
res=$(cat "$RUN_DIR/agent-tls-agent.out")
check "... stored byte for byte" cmp "$res" "$D/$(basename "$res")"
check_eq "agent with a wrong pin: result kept in the spool (exit 3)" \
	"$(agent_up tls-wrong "$WRONG")" 3
check "... its log says why" grep -q "not the pinned one" \
	"$RUN_DIR/agent-tls-wrong.log"
check_eq "an agent given a malformed pin stops at once (usage)" \
	"$($BB agent --role=controller --upload "$U" --pin md5//x \
	2>/dev/null; echo $?)" 2
tap_done
