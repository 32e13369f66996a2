#!/bin/sh
# 170_power_cut: the fault matrix's power cut.  A controller VM whose
# spool is on the USB image's BBRESULTS partition (the image file as its
# disk; kernel and initramfs given to QEMU, so the test sets the
# parameters) is cut off mid-run with QEMU's `quit` (no shutdown, no
# sync) after repeat 1 of 2; the checkpoint is then in the image file.
# Booted again from the same file, the controller uploads that checkpoint,
# marked partial and interrupted, exactly once, and runs its suite anew;
# given the run's id (benchboot.run_id=) on both boots, it continues the
# run instead: one whole result, repeat 1 from the checkpoint.
# The client, the server under test (busybox httpd) and the collector are
# in a network namespace of the test's, QEMU too.  make test-long: 23
# cases, 293 s under software emulation (TCG, a loaded 2-core host).
. "$(dirname "$0")/../../lib.sh"
. "$(dirname "$0")/../lib.sh"
qt_init
# wait_for (servers.sh), its data under QT_DIR.
RUN_DIR=$QT_DIR
. "$TOP/payload/tests/lib/servers.sh"
IMG=$IMAGES/benchboot-$ARCH.img
BENCHBOOT=${BENCHBOOT:-$O/$ARCH/bin/benchboot}
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz" "$IMG" "$BENCHBOOT"
if [ "$(id -u)" != 0 ] || ! command -v socat >/dev/null ||
	! command -v mdir >/dev/null; then
	skip "needs root (a network namespace), socat and mtools"
	tap_done
	exit 0
fi
qt_netns cut &&
	ip -n "$QT_NS" addr add 10.0.2.2/32 dev lo ||
	{ not_ok "namespace $QT_NS"; tap_done; exit 1; }

stick=$QT_DIR/stick.img
cp --sparse=always "$IMG" "$stick"
off=$(qt_part_offset "$stick" 0c)
S="$stick@@$off"
# The collector runs as nobody: its store where nobody can reach it.
qt_shared_dir
COLLECTED=$QT_SHARED/collected
mkdir -p "$QT_DIR/www" "$COLLECTED"
head -c 4050 /dev/zero | tr '\0' x >"$QT_DIR/www/index.html"
cat >"$QT_DIR/www/cut.suite" <<'SUITE'
# Two repeats of one http step: the power is cut in the second.
suite cut
version 1
clients 1
servers 0
wait 300s
repeats 2
warmup 1s
duration 10s
cooldown 200ms

step http
	concurrency 2
	run http -t 1 -c {conc} -d {duration} --warmup {warmup} http://{server}:8080/index.html
SUITE
$X busybox httpd -f -p 8080 -h "$QT_DIR/www" &
QT_PIDS="$QT_PIDS $!"
# As root the collector needs --user: nobody, its store made nobody's.
CU=
if [ "$(id -u)" = 0 ]; then
	chown nobody "$COLLECTED"
	CU="--user nobody"
fi
$X "$BENCHBOOT" collect --dir "$COLLECTED" $CU \
	--listen 127.0.0.1:8081 --token tk >"$QT_DIR/collect.log" 2>&1 &
QT_PIDS="$QT_PIDS $!"
$X "$BENCHBOOT" agent --role=client --id cut-cl \
	--controller 127.0.0.1:7408 --target 10.0.2.2 >"$QT_DIR/cl.log" 2>&1 &
QT_PIDS="$QT_PIDS $!"

# boot NAME [PARAMS]: the controller VM from the stick, its monitor on a
# socket (for the power cut).
id=$(qt_macid 11 controller)
boot() {
	QT_CASE=$1
	qt_start "$1" -kernel "$IMAGES/vmlinuz" \
		-initrd "$IMAGES/initramfs.cpio.gz" \
		-append "console=ttyS0,115200 benchboot.role=controller benchboot.suite=http://10.0.2.2:8080/cut.suite benchboot.target=10.0.2.2 benchboot.peers=1 benchboot.upload=http://10.0.2.2:8081/results/ benchboot.token=tk ${2:-}" \
		-drive "if=virtio,format=raw,file=$stick" \
		-monitor "unix:$QT_DIR/$1.mon,server=on,wait=off" \
		-nic "user,model=virtio-net-pci,mac=$(qt_mac 11),hostfwd=tcp:127.0.0.1:7408-:7407"
}
QT_WRAP=$X boot first
qt_ready controller "$id" 60 || { tap_done; exit 1; }
check "first boot: the spool is on the stick" \
	grep -q "results partition .* mounted on /results" "$QT_LOG"
check "first boot: repeat 1 done, repeat 2 running" wait_for \
	"$(qt_timeout 60)" grep -q "step http/c2/r2" "$QT_DIR/cl.log"
sleep 2
echo quit | socat - "UNIX-CONNECT:$QT_DIR/first.mon" >/dev/null
check "the power cut: QEMU quit at once" qt_exited 10
cp=$(mdir -b -i "$S" ::spool/partial 2>/dev/null | grep '\.json$' |
	head -1)
check "the checkpoint is in the image file" test -n "$cp"
mtype -i "$S" "$cp" >"$QT_DIR/checkpoint.json" 2>/dev/null
cid=$(jq -r .id "$QT_DIR/checkpoint.json" 2>/dev/null)
check "it holds repeat 1, marked partial" qt_jqe \
	'.partial == true and (.steps[0].repeats | length) == 1' \
	"$QT_DIR/checkpoint.json"
check "nothing reached the collector" test ! -e \
	"$COLLECTED/$cid.json"

QT_WRAP=$X boot second benchboot.poweroff=1
qt_ready controller "$id" 60 || { tap_done; exit 1; }
check "second boot: the checkpoint uploaded" wait_for "$(qt_timeout 30)" \
	test -e "$COLLECTED/$cid.json"
check "marked partial and interrupted, with repeat 1" qt_jqe \
	'.partial == true and (.interrupted | test("stopped before")) and
	 (.steps[0].repeats | length) == 1' "$COLLECTED/$cid.json"
check "the second boot's own run ends, the VM powers off" \
	qt_exited "$(qt_timeout 120)"
check_eq "the checkpoint stored exactly once" \
	"$(grep -c "stored $cid" "$QT_DIR/collect.log")" 1
check "the new run's result arrived too, whole" sh -c \
	"ls '$COLLECTED'/cut-*.json |
	grep -v '$cid' | xargs jq -e '(.partial | not) and
	 (.steps[0].repeats | length) == 2' >/dev/null"
check "no checkpoint left on the stick" sh -c \
	"! mdir -b -i '$S' ::spool/partial 2>/dev/null | grep -q '\.json$'"

# --- the same with a run id: the next boot resumes ----------------------
# A fresh stick; both boots have benchboot.run_id=, so the second one
# continues the run after repeat 1 and delivers one whole result.
stick=$QT_DIR/stick2.img
cp --sparse=always "$IMG" "$stick"
S="$stick@@$off"
n0=$(wc -l <"$QT_DIR/cl.log")
QT_WRAP=$X boot third benchboot.run_id=cut-r1
qt_ready controller "$id" 60 || { tap_done; exit 1; }
check "third boot (run id): repeat 1 done, repeat 2 running" wait_for \
	"$(qt_timeout 90)" sh -c \
	"tail -n +$((n0 + 1)) '$QT_DIR/cl.log' | grep -q 'step http/c2/r2'"
sleep 2
echo quit | socat - "UNIX-CONNECT:$QT_DIR/third.mon" >/dev/null
check "the power cut again" qt_exited 10
check "its checkpoint is on the stick" sh -c \
	"mdir -b -i '$S' ::spool/partial 2>/dev/null | grep -q 'cut-r1\.json$'"
QT_WRAP=$X boot fourth "benchboot.run_id=cut-r1 benchboot.poweroff=1"
qt_ready controller "$id" 60 || { tap_done; exit 1; }
check "fourth boot: the run ends, the VM powers off" \
	qt_exited "$(qt_timeout 120)"
check "one whole result with the run id: repeat 1 resumed, 2 run again" \
	qt_jqe '(.partial | not) and (.interrupted | not) and
	 [.steps[0].repeats[] | [.repeat, .resumed]] == [[1,true],[2,null]] and
	 (.resumed.repeats | length) == 1' "$COLLECTED/cut-r1.json"
check_eq "stored exactly once" \
	"$(grep -c "stored cut-r1" "$QT_DIR/collect.log")" 1
check "no checkpoint left on the stick" sh -c \
	"! mdir -b -i '$S' ::spool/partial 2>/dev/null | grep -q '\.json$'"
tap_done
