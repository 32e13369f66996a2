#!/bin/sh
# 001_stick_params: the field test's parameter file on the stick
# (initramfs/lib/benchboot/stick.sh, BBRESULTS:benchboot/params.txt),
# table-driven, run on the build host with the image's BusyBox shell (no
# QEMU): defaults < the file < the command line, and every bad line is an
# error naming the file and the line.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
O=${O:-$TOP/out}
BUSYBOX=${BUSYBOX:-$O/${ARCH:-x86_64}/busybox/busybox}
. "$TOP/payload/tests/lib/tap.sh"
LIB=$TOP/initramfs/lib/benchboot

if ! [ -x "$BUSYBOX" ]; then
	not_ok "BusyBox at $BUSYBOX (run 'make' first)"
	tap_done
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# field FILE-TEXT CMDLINE: what bb_field_params makes of a stick whose
# params.txt holds FILE-TEXT (printf escapes; "-" for no file) under
# CMDLINE, as one line "errors=N role=.. suite=.. upload=.. poweroff=N
# peers=.. debug=N", then the error lines.  /results counts as mounted.
field() {
	rm -f "$tmp/params.txt" "$tmp/errors"
	[ "$1" = - ] || printf "$1" >"$tmp/params.txt"
	"$BUSYBOX" sh -c '. "$1/params.sh"; . "$1/stick.sh"
		mountpoint() { return 0; }
		BB_STICK_PARAMS=$2/params.txt BB_STICK_ERRORS=$2/errors
		bb_field_params "$3" >"$2/out"
		echo "errors=$BB_PARAM_ERRORS role=$BB_ROLE suite=$BB_SUITE" \
			"upload=$BB_UPLOAD poweroff=$BB_POWEROFF peers=$BB_PEERS" \
			"debug=$BB_DEBUG"
		cat "$2/out"' sh "$LIB" "$tmp" "$2"
}

F='benchboot.role=client benchboot.field=1'
# The table: case | file text | command line | expected first line
# (prefix) | a string the error output must contain ("-": no error output).
while IFS='|' read -r name text cmdline want err; do
	[ -n "$name" ] || continue
	check_parsed "$name" "$(field "$text" "$cmdline")" "$want" "$err"
done <<EOT
no file: the defaults|-|$F|errors=0 role=client suite=default upload=file:///results poweroff=1 peers= |-
comments only|# only comments\n\n|$F|errors=0 role=client suite=default upload=file:///results |-
suite and peers|benchboot.suite=smoke\nbenchboot.peers=1\n|$F|errors=0 role=client suite=smoke upload=file:///results poweroff=1 peers=1 |-
CRLF, blanks around|benchboot.suite=smoke\r\n  benchboot.peers=3  \r\n|$F|errors=0 role=client suite=smoke upload=file:///results poweroff=1 peers=3 |-
a UTF-8 BOM|\357\273\277benchboot.debug=1|$F|errors=0 role=client suite=default upload=file:///results poweroff=1 peers= debug=1|-
a suite file on the stick|benchboot.suite=/results/benchboot/my.suite|$F|errors=0 role=client suite=/results/benchboot/my.suite |-
a collector, no poweroff|benchboot.upload=http://10.0.0.5:8081/results/\nbenchboot.poweroff=0|$F|errors=0 role=client suite=default upload=http://10.0.0.5:8081/results/ poweroff=0 |-
the command line wins|benchboot.suite=smoke|$F benchboot.suite=lab1|errors=0 role=client suite=lab1 |-
a misspelt key|benchboot.sutie=smoke|$F|errors=1 role=client suite=default |params.txt line 1: 'benchboot.sutie=smoke': unknown parameter
a bad value on line 3|\n# c\nbenchboot.peers=many|$F|errors=1 |params.txt line 3: 'benchboot.peers=many': peers must be a number
two on one line|benchboot.suite=smoke benchboot.peers=1|$F|errors=1 role=client suite=default |line 1: 'benchboot.suite=smoke benchboot.peers=1': one benchboot.KEY=VALUE a line
no benchboot. prefix|suite=smoke|$F|errors=1 |line 1: 'suite=smoke': not a benchboot.KEY=VALUE line
a role line|benchboot.role=server|$F|errors=1 role=client |line 1: 'benchboot.role=server': the menu entry sets benchboot.role
a field line|benchboot.field=0|$F|errors=1 |the menu entry sets benchboot.field
two bad lines|benchboot.upload=ftp://x/\nbenchboot.id=a_b|$F|errors=2 |line 2: 'benchboot.id=a_b': id must be
a bad command line still counts|benchboot.suite=smoke|$F benchboot.role=bogus|errors=1 role=client suite=smoke |'benchboot.role=bogus': role must be
EOT

# Without BBRESULTS mounted the field test stops: its result has nowhere
# to go.
got=$("$BUSYBOX" sh -c '. "$1/params.sh"; . "$1/stick.sh"
	mountpoint() { return 1; }
	bb_field_params "benchboot.field=1"; echo "errors=$BB_PARAM_ERRORS"' \
	sh "$LIB")
case $got in
*"no BBRESULTS partition"*errors=1) ok "no BBRESULTS: one error naming it" ;;
*) not_ok "no BBRESULTS: one error naming it"; diag "  got: $got" ;;
esac
tap_done
