#!/bin/sh
# 090_server_chroot: the server overlay on top of the base initramfs,
# unpacked into a directory and started with server-start in a chroot with
# private mount, PID and network namespaces (no QEMU, a few seconds): every
# service answers, the content is what the suite expects, local mail lands
# in maildirs, other domains are refused, relay mail reaches a
# `benchboot smtp-sink` once server-relay names it, and the versions file
# is complete.  Needs root (chroot, namespaces); skipped otherwise.
# harness: parallel
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
O=${O:-$TOP/out}
ARCH=${ARCH:-x86_64}
IMAGES=${IMAGES:-$O/$ARCH/images}
. "$TOP/payload/tests/lib/tap.sh"
# jq_q FILTER FILE: jq -e without its output (check prints the case).
jq_q() { jq -e "$@" >/dev/null; }

if [ "$(id -u)" != 0 ]; then
	skip "server overlay in a chroot (needs root for chroot and namespaces)"
	tap_done
	exit 0
fi
for f in "$IMAGES/initramfs.cpio.gz" "$IMAGES/server-overlay.cpio.gz"; do
	[ -f "$f" ] && continue
	not_ok "$f exists (run 'make images server-overlay' first)"
	tap_done
	exit 1
done

D=$O/qemu-tests/090_server_chroot
rm -rf "$D"
mkdir -p "$D/root"
trap 'rm -rf "$D/root"' EXIT
# Both archives in boot order, as the kernel unpacks them (a later member
# replaces an earlier one).
("$TOP/image/image-digest.sh" unpack "$IMAGES/initramfs.cpio.gz" "$D/root" &&
	cd "$D/root" &&
	zcat "$IMAGES/server-overlay.cpio.gz" | cpio -idmu --quiet) ||
	{ not_ok "unpack base + overlay"; tap_done; exit 1; }
mkdir -p "$D/root/results"
# The payload under test (make test's BENCHBOOT is the one the image
# carries; a stale image must not hide a newer payload's behaviour here).
[ -n "${BENCHBOOT:-}" ] && [ -x "$BENCHBOOT" ] &&
	cp "$BENCHBOOT" "$D/root/bin/benchboot"

# Everything runs inside; the results land in /results (not a tmpfs).
cat >"$D/root/results/run.sh" <<'EOF'
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t devtmpfs devtmpfs /dev
ip link set lo up
hostname chroot-server
R=/results
t0=$(date +%s)
BB_SERVER_WAIT=60 /usr/lib/benchboot/server-start >$R/start.log 2>&1
echo $? >$R/start.rc
echo $(($(date +%s) - t0)) >$R/start.s
cp /run/benchboot/server-versions.json $R/versions.json 2>/dev/null
benchboot fetch http://127.0.0.1/index.html >$R/index.html
benchboot fetch http://127.0.0.1/tree/3/1/4.html >$R/tree.html
benchboot fetch http://127.0.0.1/cgi-bin/hello >$R/cgi.txt
find /srv/www/tree -type f -name '*.html' | wc -l >$R/tree.count
for d in $(find /srv/www/tree -type d); do ls "$d" | wc -l; done |
	sort -u >$R/tree.perdir
benchboot sql-ping --host 127.0.0.1 --user bench --password bench \
	--db bench >$R/sql-tcp.txt 2>&1
benchboot sql-ping --socket /run/mysqld/mysqld.sock --user bench \
	--password bench --db bench_ops >$R/sql-sock.txt 2>&1
benchboot sql-ping --host 127.0.0.1 --user bench --password wrong \
	>$R/sql-bad.txt 2>&1
echo $? >$R/sql-bad.rc
benchboot sql-ping --host 127.0.0.1 --user root >/dev/null 2>&1
echo $? >$R/sql-root-tcp.rc
benchboot smtp -n 3 --from load@client.test \
	--to user7@bench.test,anyone@bench.test 127.0.0.1:25 >$R/smtp-local.txt
benchboot smtp -n 1 --from load@client.test --to x@elsewhere.test \
	127.0.0.1:25 >$R/smtp-foreign.txt
mkdir -p /tmp/sink
benchboot smtp-sink --store /tmp/sink 127.0.0.1:2525 >$R/sink.txt 2>&1 &
sleep 0.5
/usr/lib/benchboot/server-relay 127.0.0.1:2525 >$R/relay.txt 2>&1
echo $? >$R/relay.rc
/usr/lib/benchboot/server-relay 'bad host:25' >/dev/null 2>&1
echo $? >$R/relay-bad.rc
benchboot smtp -n 4 --from load@client.test --to r@relay.test \
	127.0.0.1:25 >$R/smtp-relay.txt
n=0
while [ $n -lt 100 ]; do
	[ "$(ls /tmp/sink | wc -l)" -ge 4 ] && [ "$(ls /srv/mail/user7/new |
		wc -l)" -ge 3 ] && break
	usleep 100000
	n=$((n + 1))
done
ls /tmp/sink | wc -l >$R/sink.count
ls /srv/mail/user7/new | wc -l >$R/maildir-user7.count
ls /srv/mail/catchall/new | wc -l >$R/maildir-catchall.count
grep ' /srv ' /proc/mounts >$R/srv.mount
cp /run/postfix/maillog $R/maillog 2>/dev/null
EOF
chmod +x "$D/root/results/run.sh"
timeout 300 unshare -m -n -p -f --kill-child chroot "$D/root" \
	/results/run.sh >"$D/run.log" 2>&1
# Keep what the run left (logs included) beside the test's other output.
cp -a "$D/root/results" "$D/results"
R=$D/results

if [ "$(cat "$R/start.rc" 2>/dev/null)" = 0 ]; then
	ok "server-start: Apache, MariaDB and Postfix up ($(cat "$R/start.s") s)"
else
	not_ok "server-start: Apache, MariaDB and Postfix up"
	sed 's/^/#   | /' "$R/start.log"
fi
check_eq "page: 4050 bytes" "$(wc -c <"$R/index.html")" 4050
check_eq "page: the same bytes on every build" \
	"$(sha256sum <"$R/index.html" | cut -c1-16)" \
	"$(cut -c1-16 "$TOP/qemu-tests/090_server_chroot/index.sha256")"
check "tree: tree/3/1/4.html served" grep -q 'tree file 314 of 1000' \
	"$R/tree.html"
check_eq "tree: 1000 files" "$(cat "$R/tree.count")" 1000
check_eq "tree: 10 entries in every directory" "$(cat "$R/tree.perdir")" 10
check_eq "cgi: Hello, world" "$(cat "$R/cgi.txt")" "Hello, world"
check "sql: bench@'%' over TCP into database bench" \
	grep -q 'MariaDB' "$R/sql-tcp.txt"
check "sql: bench@localhost over the socket into bench_ops" \
	grep -q 'MariaDB' "$R/sql-sock.txt"
check_eq "sql: a wrong password is refused" "$(cat "$R/sql-bad.rc")" 1
check_eq "sql: no password-less root over TCP" \
	"$(cat "$R/sql-root-tcp.rc")" 1
check "smtp: 3 mails to 2 local recipients accepted" \
	grep -q 'mails  *3 .* of 3 attempts, 6 recipients' "$R/smtp-local.txt"
check_eq "smtp: user7@bench.test has its own maildir with 3 mails" \
	"$(cat "$R/maildir-user7.count")" 3
check_eq "smtp: other local parts land in the catch-all maildir" \
	"$(cat "$R/maildir-catchall.count")" 3
check "smtp: a foreign domain is refused (5xx, no open relay)" \
	grep -q 'reply_5xx 1' "$R/smtp-foreign.txt"
check_eq "relay: server-relay accepts HOST:PORT" "$(cat "$R/relay.rc")" 0
check_eq "relay: server-relay refuses a bad address" \
	"$(cat "$R/relay-bad.rc")" 2
check_eq "relay: 4 mails for relay.test reach the smtp-sink" \
	"$(cat "$R/sink.count")" 4
check "data: /srv is a tmpfs" grep -q ' /srv tmpfs ' "$R/srv.mount"
if command -v jq >/dev/null; then
	check "versions: Apache, MariaDB, Postfix versions and packages" \
		jq_q '.apache.version | startswith("Apache/2.4")' "$R/versions.json"
	check "versions: every service names its pinned package version" \
		jq_q '[.apache, .mariadb, .postfix, .libc] | all(
			.package_version | length > 0)' "$R/versions.json"
	check "versions: MariaDB and Postfix report themselves" \
		jq_q '(.mariadb.version | test("MariaDB")) and
			(.postfix.version | test("^3\\."))' "$R/versions.json"
else
	not_ok "versions: jq is installed (make test installs it)"
fi
tap_done
