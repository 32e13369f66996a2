#!/bin/sh
# 630_collect.sh: `benchboot collect` on loopback: stores a valid upload
# atomically (PUT and POST), is idempotent by result id, and rejects
# unauthenticated, oversized, malformed, mismatched and truncated uploads
# with a clear status, storing nothing for them; a viewer's token opens
# GET alone.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
BB="${TARGET_RUN:+$TARGET_RUN }$BENCHBOOT"
trap servers_stop EXIT

D=$RUN_DIR/store
mkdir -p "$D"
# As root the collector needs --user: nobody, its store made nobody's.
CU=$(collect_user "$D")
PORT=$(free_port)
$BB collect $CU --dir "$D" --listen 127.0.0.1:$PORT --token tok \
	--max-size 100k 2>"$RUN_DIR/collect.log" &
COL=$!
SERVER_PIDS="$SERVER_PIDS $COL"
U=http://127.0.0.1:$PORT
check "collector up" wait_for 10 curl -s -o /dev/null $U/

doc() { printf '{"schema":"benchboot.result/1","id":"%s","x":%s}' "$1" "$2"; }
# put PATH BODY [AUTH]: prints the HTTP status.
put() {
	curl -s -o "$RUN_DIR/body" -w '%{http_code}' -X PUT \
		-H "Authorization: Bearer ${3:-tok}" \
		-H 'Content-Type: application/json' --data-binary "$2" "$U$1"
}
doc r1 1 >"$RUN_DIR/r1.json"
check_eq "PUT stores: 201" "$(put /results/r1.json @"$RUN_DIR/r1.json")" 201
check "stored byte for byte" cmp "$RUN_DIR/r1.json" "$D/r1.json"
check_eq "same PUT again: 200, not stored twice" \
	"$(put /results/r1.json @"$RUN_DIR/r1.json")" 200
check "answer says already stored" grep -q "already stored" "$RUN_DIR/body"
check_eq "same id, other content: 409" \
	"$(put /results/r1.json "$(doc r1 2)")" 409
check "the first copy is untouched" cmp "$RUN_DIR/r1.json" "$D/r1.json"
check_eq "POST stores (id from the body): 201" "$(curl -s -o /dev/null \
	-w '%{http_code}' -H 'Authorization: Bearer tok' \
	--data-binary "$(doc r2 1)" $U/results)" 201
check_eq "no token: 401" "$(curl -s -o /dev/null -w '%{http_code}' -X PUT \
	--data-binary "$(doc r3 1)" $U/results/r3.json)" 401
check_eq "wrong token: 401" "$(put /results/r3.json "$(doc r3 1)" bad)" 401
check_eq "GET without token: 401" \
	"$(curl -s -o /dev/null -w '%{http_code}' $U/)" 401
head -c 200000 /dev/zero | tr '\0' ' ' >"$RUN_DIR/big"
check_eq "over --max-size: 413" "$(put /results/r4.json @"$RUN_DIR/big")" 413
check_eq "not JSON: 400" "$(put /results/r5.json '{nope')" 400
check_eq "wrong schema: 400" "$(put /results/r6.json \
	'{"schema":"x/1","id":"r6"}')" 400
check_eq "path id differs from the document's: 400" \
	"$(put /results/r7.json "$(doc r8 1)")" 400
check_eq "id with a path in it: 400" \
	"$(put /results/x.json "$(doc ../evil 1)")" 400
check_eq "chunked upload: 411" "$(curl -s -o /dev/null -w '%{http_code}' \
	-X PUT -H 'Authorization: Bearer tok' -H 'Transfer-Encoding: chunked' \
	--data-binary "$(doc r9 1)" $U/results/r9.json)" 411
check_eq "DELETE: 405" "$(curl -s -o /dev/null -w '%{http_code}' -X DELETE \
	-H 'Authorization: Bearer tok' $U/results/r1.json)" 405
# A client that dies half way through its body.
python3 - "$PORT" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"PUT /results/r10.json HTTP/1.1\r\nAuthorization: Bearer tok\r\n"
          b"Content-Length: 5000\r\n\r\n" + b'{"schema":"benchboot.result/1"')
s.close()
PY
check "truncated upload logged" wait_for 5 grep -q "cut short" \
	"$RUN_DIR/collect.log"
check_eq "only r1 and r2 stored, no temporary files" \
	"$(ls -A "$D" | sort | tr '\n' ' ')" "r1.json r2.json "
check_eq "GET / lists both" "$(curl -s -H 'Authorization: Bearer tok' $U/ |
	jq -r '[.results[].id] | sort | join(",")')" "r1,r2"
check "GET returns a stored result" sh -c "curl -sf -H 'Authorization: \
Bearer tok' $U/results/r1.json | cmp - $RUN_DIR/r1.json"

# A viewer's token (--view-token-file) opens GET alone, as a browser sends
# it: the password of Basic credentials, asked for by WWW-Authenticate.
printf 'view\n' >"$RUN_DIR/view"
printf 'tok\n' >"$RUN_DIR/tok"
VPORT=$(free_port)
$BB collect $CU --dir "$D" --listen 127.0.0.1:$VPORT --token tok \
	--view-token-file "$RUN_DIR/view" 2>"$RUN_DIR/collect-view.log" &
SERVER_PIDS="$SERVER_PIDS $!"
V=http://127.0.0.1:$VPORT
check "collector with a viewer token up" wait_for 10 curl -s -o /dev/null $V/
# vcode CURL-ARGS...: the status of a request to the viewer's collector.
vcode() { curl -s -o "$RUN_DIR/vbody" -w '%{http_code}' "$@"; }
check_eq "viewer: GET / with Basic x:view: 200" \
	"$(vcode -u reader:view $V/)" 200
check "viewer: the listing is the store's" \
	sh -c "jq -e '.results | length == 2' <'$RUN_DIR/vbody' >/dev/null"
check_eq "viewer: GET a result: 200" \
	"$(vcode -u reader:view $V/results/r1.json)" 200
check_eq "viewer: PUT with the viewer's token: 401" "$(vcode -u reader:view \
	-X PUT --data-binary @"$RUN_DIR/r1.json" $V/results/v1.json)" 401
check_eq "viewer: the upload token is no Basic password: 401" \
	"$(vcode -u reader:tok $V/)" 401
check "viewer: a 401 to a GET asks for Basic credentials" sh -c \
	"curl -s -D - -o /dev/null $V/ | grep -qi '^WWW-Authenticate: Basic realm=\"benchboot results\"'"
check_eq "viewer: the agents' Bearer token still opens all: 200" \
	"$(vcode -H 'Authorization: Bearer tok' $V/)" 200
VPORT2=$(free_port)
timeout 10 $BB collect $CU --dir "$D" --listen 127.0.0.1:$VPORT2 --token tok \
	--view-token-file "$RUN_DIR/tok" 2>"$RUN_DIR/same.err"
check_eq "a viewer token equal to the upload token: usage error" "$?" 2
check "... saying so" grep -q "holds the upload token" "$RUN_DIR/same.err"
timeout 10 $BB collect $CU --dir "$D" --listen 127.0.0.1:$VPORT2 \
	--view-token-file "$RUN_DIR/view" 2>"$RUN_DIR/alone.err"
check_eq "a viewer token without an upload token: usage error" "$?" 2
check "... saying so" grep -q "beside --token" "$RUN_DIR/alone.err"

# Root: refused without --user; with it the collector runs as that user,
# and a store that user cannot write is refused, saying so.
if [ "$(id -u)" = 0 ]; then
	check_eq "it runs as --user nobody" "$(ps -o user= -p $COL)" nobody
	timeout 10 $BB collect --dir "$D" --listen 127.0.0.1:$VPORT2 \
		--token tok 2>"$RUN_DIR/root.err"
	check_eq "as root without --user: usage error" "$?" 2
	check "... saying so" grep -q "running as root: give --user NAME" \
		"$RUN_DIR/root.err"
	timeout 10 $BB collect --user no-such-user-630 --dir "$D" \
		--listen 127.0.0.1:$VPORT2 --token tok 2>"$RUN_DIR/nouser.err"
	check_eq "--user naming no user: usage error" "$?" 2
	check "... saying so" grep -q "no-such-user-630: no such user" \
		"$RUN_DIR/nouser.err"
	mkdir -p "$RUN_DIR/rootstore"
	timeout 10 $BB collect --user nobody --dir "$RUN_DIR/rootstore" \
		--listen 127.0.0.1:$VPORT2 --token tok 2>"$RUN_DIR/unwritable.err"
	check_eq "a store --user cannot write: exit 1" "$?" 1
	check "... saying so" grep -q \
		"rootstore: not writable by --user nobody" "$RUN_DIR/unwritable.err"
	# A store nobody owns, under a directory closed to it (a checkout
	# in /root): the message names that directory, not the store.
	mkdir -p "$RUN_DIR/closed/store"
	chmod 700 "$RUN_DIR/closed"
	chown nobody "$RUN_DIR/closed/store"
	timeout 10 $BB collect --user nobody --dir "$RUN_DIR/closed/store" \
		--listen 127.0.0.1:$VPORT2 --token tok 2>"$RUN_DIR/closed.err"
	check_eq "a store under a 0700 directory: exit 1" "$?" 1
	check "... naming the directory it may not pass" grep -qF \
		"may not pass $RUN_DIR/closed (closed to other users" \
		"$RUN_DIR/closed.err"
else
	skip "--user: not root"
fi
tap_done
