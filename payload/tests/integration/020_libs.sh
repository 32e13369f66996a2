#!/bin/sh
# 020_libs.sh: the static libcurl and mariadb-connector-c really work:
# an HTTP fetch from nginx and SELECT VERSION() on a real MariaDB.
set -u
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/payload/tests/lib/servers.sh"
trap servers_stop EXIT INT TERM

docroot=$RUN_DIR/www
mkdir -p "$docroot"
head -c 100000 /dev/urandom >"$docroot/blob.bin"
want=$(sha256sum <"$docroot/blob.bin" | cut -d' ' -f1)

if nginx_start "$docroot"; then
	url=http://127.0.0.1:$NGINX_PORT
	$TARGET_RUN "$BENCHBOOT" fetch -o "$RUN_DIR/got.bin" "$url/blob.bin"
	check_eq "fetch over HTTP exits 0" "$?" 0
	got=$(sha256sum <"$RUN_DIR/got.bin" 2>/dev/null | cut -d' ' -f1)
	check_eq "fetched file is byte-identical" "$got" "$want"
	got=$($TARGET_RUN "$BENCHBOOT" fetch "$url/blob.bin" | sha256sum |
		cut -d' ' -f1)
	check_eq "fetch to stdout is byte-identical" "$got" "$want"
	err=$($TARGET_RUN "$BENCHBOOT" fetch -o "$RUN_DIR/none" \
		"$url/missing" 2>&1)
	rc=$?
	check_eq "HTTP 404 exits 1" "$rc" 1
	check "HTTP 404 leaves no file" [ ! -e "$RUN_DIR/none" ] 
	check "HTTP 404 error names URL and status" \
		sh -c "echo \"\$1\" | grep -q 'missing: server answered HTTP 404'" \
		sh "$err"
else
	not_ok "nginx started"
fi

got=$($TARGET_RUN "$BENCHBOOT" fetch "file://$docroot/blob.bin" |
	sha256sum | cut -d' ' -f1)
check_eq "fetch file:// is byte-identical" "$got" "$want"
err=$($TARGET_RUN "$BENCHBOOT" fetch http://127.0.0.1:1/ 2>&1)
check "refused connection exits 1 with a message" \
	sh -c "[ \$1 = 1 ] && echo \"\$2\" | grep -q '127.0.0.1:1/:'" sh "$?" "$err"

if mariadb_start; then
	want=$(mariadb --no-defaults --socket="$MARIADB_SOCK" -uroot -N \
		-e 'SELECT VERSION()')
	got=$($TARGET_RUN "$BENCHBOOT" sql-ping --socket "$MARIADB_SOCK" \
		--user bench --password bench)
	check_eq "SELECT VERSION() over the socket" "$got" "$want"
	got=$($TARGET_RUN "$BENCHBOOT" sql-ping --host 127.0.0.1 \
		--port "$MARIADB_PORT" --user bench --password bench)
	check_eq "SELECT VERSION() over TCP" "$got" "$want"
	err=$($TARGET_RUN "$BENCHBOOT" sql-ping --host 127.0.0.1 \
		--port "$MARIADB_PORT" --user bench --password wrong 2>&1)
	check "a wrong password exits 1 naming the refusal" \
		sh -c "[ \$1 = 1 ] && echo \"\$2\" | grep -q 'Access denied'" \
		sh "$?" "$err"
else
	not_ok "mariadb started"
fi
err=$($TARGET_RUN "$BENCHBOOT" sql-ping --port 70000 2>&1)
check_eq "a bad --port is a usage error" "$?" 2

tap_done
