#!/bin/sh
# 100_server_stack: boots kernel + base initramfs + server overlay (one
# file, the two archives back to back as a boot loader loads them) with
# benchboot.role=server; READY must come only after server-start has
# brought Apache, MariaDB and Postfix up.  Then, from the host through QEMU
# user-net port forwards on 127.0.0.1: the 4050-byte page, a tree file and
# the CGI over HTTP, `benchboot sql-ping` as bench/bench, an SMTP exchange
# into a local maildir, and relay mail that reaches a `benchboot smtp-sink`
# on the host once server-relay (typed into the debug shell on the serial
# console) names it.
# QT_EXTRA_INITRD: more archives appended after the overlay (a developer's
# patch of the base, e.g. a newer benchboot, without rebuilding images).
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
. "$TOP/payload/tests/lib/servers.sh"
# jq_q FILTER FILE: jq -e without its output (check prints the case).
jq_q() { jq -e "$@" >/dev/null; }
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz" \
	"$IMAGES/server-overlay.cpio.gz"
BENCHBOOT=${BENCHBOOT:-$O/$ARCH/bin/benchboot}

# The boot loader's view: both archives in one initrd.
cat "$IMAGES/initramfs.cpio.gz" "$IMAGES/server-overlay.cpio.gz" \
	${QT_EXTRA_INITRD:-} >"$QT_DIR/initrd.gz"

HP=$(free_port) SP=$(free_port) MP=$(free_port) RP=$(free_port)
SINK_PID=
trap 'qt_cleanup; [ -n "$SINK_PID" ] && kill $SINK_PID 2>/dev/null' EXIT
mkdir -p "$QT_DIR/sink"
"$BENCHBOOT" smtp-sink --store "$QT_DIR/sink" "127.0.0.1:$RP" \
	>"$QT_DIR/sink.log" 2>&1 &
SINK_PID=$!

QT_CASE="server stack"
# As qt_start, but the serial console is a socket the test can type into
# (benchboot.debug=1 puts a shell on it); QEMU logs everything the guest
# writes to $QT_LOG whether or not the socket is connected.
QT_LOG=$QT_DIR/server.log
: >"$QT_LOG"
QT_T0=$(date +%s%3N)
qemu-system-x86_64 -accel "$QT_ACCEL" -m 1024 -smp 1 -display none \
	-no-reboot -monitor none \
	-chardev "socket,id=con,path=$QT_DIR/console.sock,server=on,wait=off,logfile=$QT_LOG" \
	-serial chardev:con \
	-kernel "$IMAGES/vmlinuz" -initrd "$QT_DIR/initrd.gz" \
	-append "console=ttyS0,115200 benchboot.role=server benchboot.id=srv-1 benchboot.debug=1" \
	-nic "user,model=virtio-net-pci,mac=$(qt_mac 1),hostfwd=tcp:127.0.0.1:$HP-:80,hostfwd=tcp:127.0.0.1:$SP-:3306,hostfwd=tcp:127.0.0.1:$MP-:25" \
	>"$QT_DIR/server.qemu.log" 2>&1 &
QT_PID=$!
QT_PIDS="$QT_PIDS $QT_PID"

if ! qt_ready server srv-1 90; then
	grep -E 'server-start|BENCHBOOT-(ERROR|STOPPED)' "$QT_LOG" |
		sed 's/^/#   | /'
	tap_done
	exit 1
fi
READY_MS=$QT_MS
# READY after the stack: the "up" line precedes it in the console log.
up=$(grep -n 'server-start: up:' "$QT_LOG" | head -n 1 | cut -d: -f1)
ready=$(grep -n '^BENCHBOOT-READY' "$QT_LOG" | head -n 1 | cut -d: -f1)
if [ -n "$up" ] && [ "$up" -lt "$ready" ]; then
	ok "server stack: every service was up before READY"
else
	not_ok "server stack: every service was up before READY"
fi

U=http://127.0.0.1:$HP
check_eq "http: the page is 4050 bytes" \
	"$(curl -fsS --max-time 20 "$U/index.html" | wc -c)" 4050
check "http: tree/9/0/5.html" sh -c \
	"curl -fsS --max-time 20 '$U/tree/9/0/5.html' | grep -q 'tree file 905'"
check_eq "http: the CGI says Hello, world" \
	"$(curl -fsS --max-time 20 "$U/cgi-bin/hello")" "Hello, world"
check_eq "http: a missing file is a 404" \
	"$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 "$U/nope.html")" 404
check "sql: benchboot sql-ping as bench/bench from outside the VM" sh -c \
	"'$BENCHBOOT' sql-ping --host 127.0.0.1 --port $SP --user bench \
		--password bench --db bench --timeout 20 | grep -q MariaDB"
"$BENCHBOOT" smtp -n 2 --timeout 30s --from load@client.test \
	--to user1@bench.test "127.0.0.1:$MP" >"$QT_DIR/smtp-local.txt" 2>&1
check "smtp: 2 mails to user1@bench.test accepted" \
	grep -q 'mails  *2 .* of 2 attempts' "$QT_DIR/smtp-local.txt"
"$BENCHBOOT" smtp -n 1 --timeout 30s --from load@client.test \
	--to x@elsewhere.test "127.0.0.1:$MP" >"$QT_DIR/smtp-foreign.txt" 2>&1
check "smtp: a foreign domain is refused" \
	grep -q 'reply_5xx 1' "$QT_DIR/smtp-foreign.txt"

# The relay: QEMU's user net shows the host's 127.0.0.1 as 10.0.2.2.
shell() {
	printf '%s\n' "$*" | socat -t 2 - "UNIX-CONNECT:$QT_DIR/console.sock" \
		>>"$QT_DIR/shell.log" 2>&1
}
shell ""
shell "/usr/lib/benchboot/server-relay 10.0.2.2:$RP 2>&1"
if qt_wait 'server-relay: relay.test -> 10.0.2.2' "$(qt_timeout 20)"; then
	ok "relay: server-relay pointed relay.test at the host's sink"
else
	not_ok "relay: server-relay pointed relay.test at the host's sink"
fi
"$BENCHBOOT" smtp -n 3 --timeout 30s --from load@client.test \
	--to r@relay.test "127.0.0.1:$MP" >"$QT_DIR/smtp-relay.txt" 2>&1
check "relay: 3 mails for relay.test accepted" \
	grep -q 'mails  *3 .* of 3 attempts' "$QT_DIR/smtp-relay.txt"
n=0
while [ "$(ls "$QT_DIR/sink" | wc -l)" -lt 3 ] &&
	[ $n -lt $(($(qt_timeout 15) * 5)) ]; do
	sleep 0.2
	n=$((n + 1))
done
check_eq "relay: the host's smtp-sink received the 3 mails" \
	"$(ls "$QT_DIR/sink" | wc -l)" 3
# Markers the echoed command line cannot match ("=$(" vs "=2").
shell 'echo "MAILDIR-USER1=$(ls /srv/mail/user1/new | wc -l)"'
qt_wait 'MAILDIR-USER1=[0-9]' "$(qt_timeout 10)"
check_eq "smtp: user1's maildir holds the 2 mails" \
	"$(grep -a 'MAILDIR-USER1=[0-9]' "$QT_LOG" | tail -n 1 | tr -d '\r' |
		sed 's/.*MAILDIR-USER1=//')" 2
shell 'echo "VERSIONS=$(tr -d "\n" </run/benchboot/server-versions.json)"'
qt_wait 'VERSIONS=\{' "$(qt_timeout 10)"
grep -a 'VERSIONS={' "$QT_LOG" | tail -n 1 | tr -d '\r' | sed 's/.*VERSIONS=//' \
	>"$QT_DIR/versions.json"
check "versions: Apache, MariaDB and Postfix recorded with their packages" \
	jq_q '(.apache.version | startswith("Apache/2.4")) and
		(.mariadb.version | test("MariaDB")) and
		(.postfix.version | test("^3\\.")) and
		([.apache, .mariadb, .postfix] | all(.package_version | length > 0))' \
	"$QT_DIR/versions.json"
diag "server stack READY after $(qt_secs $READY_MS) s ($QT_ACCEL)"
tap_done
