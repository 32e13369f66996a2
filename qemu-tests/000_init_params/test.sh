#!/bin/sh
# 000_init_params: the /init kernel-parameter parser, table-driven, run on
# the build host with the image's own BusyBox shell (no QEMU).
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
O=${O:-$TOP/out}
BUSYBOX=${BUSYBOX:-$O/${ARCH:-x86_64}/busybox/busybox}
. "$TOP/payload/tests/lib/tap.sh"
PARAMS=$TOP/initramfs/lib/benchboot/params.sh

if ! [ -x "$BUSYBOX" ]; then
	not_ok "BusyBox at $BUSYBOX (run 'make' first)"
	tap_done
	exit 1
fi

# parse CMDLINE: what bb_params_parse makes of CMDLINE, as one line:
# "rc=N role=.. id=.. controller=.. suite=.. upload=.. poweroff=N debug=N
# relay=.. peers=.."
# followed by the error lines.  Runs in BusyBox ash, as on the target.
parse() {
	"$BUSYBOX" sh -c '. "$1"; bb_params_parse "$2" >"$3"; rc=$?
		echo "rc=$rc role=$BB_ROLE id=$BB_ID controller=$BB_CONTROLLER" \
			"suite=$BB_SUITE upload=$BB_UPLOAD poweroff=$BB_POWEROFF" \
			"debug=$BB_DEBUG relay=$BB_RELAY peers=$BB_PEERS" \
			"key=$BB_KEY lab=$BB_LAB token=$BB_TOKEN pin=$BB_PIN" \
			"target=$BB_TARGET time_scale=$BB_TIME_SCALE" \
			"run_id=$BB_RUN_ID set=$BB_SET if=$BB_IF"
		cat "$3"' sh "$PARAMS" "$1" "$tmp"
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# The table: kernel command line | expected first line (prefix) | a string
# the error output must contain ("-" when there must be no error).
while IFS='|' read -r cmdline want err; do
	[ -n "$cmdline" ] || continue
	check_parsed "'$cmdline'" "$(parse "$cmdline")" "$want" "$err"
done <<'EOT'
console=ttyS0 quiet|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0|-
benchboot.role=server benchboot.id=rack1-n07|rc=0 role=server id=rack1-n07 |-
benchboot.role=controller benchboot.poweroff=1 benchboot.debug=1|rc=0 role=controller id= controller= suite= upload= poweroff=1 debug=1|-
benchboot.role=client benchboot.role=server|rc=0 role=server |-
benchboot.controller=10.0.0.5:7300 benchboot.suite=smoke|rc=0 role=client id= controller=10.0.0.5:7300 suite=smoke |-
benchboot.controller=ctl.lab.example|rc=0 role=client id= controller=ctl.lab.example |-
benchboot.controller=[fe80::1]:7300|rc=0 role=client id= controller=[fe80::1]:7300 |-
benchboot.suite=https://lab/suite/default benchboot.upload=http://10.0.0.1/r/|rc=0 role=client id= controller= suite=https://lab/suite/default upload=http://10.0.0.1/r/ |-
benchboot.upload=file:///results/out.json|rc=0 role=client id= controller= suite= upload=file:///results/out.json |-
benchboot.suite="smoke"|rc=0 role=client id= controller= suite=smoke |-
benchboot.role=x -- benchboot.role=server|rc=1 role=client |'benchboot.role=x': role must be client, server or controller
benchboot.role=bogus|rc=1 role=client |'benchboot.role=bogus': role must be client, server or controller
benchboot.rol=server|rc=1 |'benchboot.rol=server': unknown parameter (known: benchboot.role
benchboot.debug|rc=1 |'benchboot.debug': needs a value
benchboot.poweroff=yes|rc=1 |'benchboot.poweroff=yes': poweroff must be 0 or 1
benchboot.debug=2|rc=1 |'benchboot.debug=2': debug must be 0 or 1
benchboot.id=-node|rc=1 |'benchboot.id=-node': id must be
benchboot.id=node_1|rc=1 |'benchboot.id=node_1': id must be
benchboot.id=a234567890123456789012345678901234567890123456789012345678901234|rc=1 |id must be 1-63
benchboot.id=|rc=1 |'benchboot.id=': id must be
benchboot.controller=ctl:0|rc=1 |'benchboot.controller=ctl:0': controller must be
benchboot.controller=ctl:65536|rc=1 |controller must be
benchboot.controller=a:b:c|rc=1 |controller must be
benchboot.controller=bad_host|rc=1 |controller must be
benchboot.suite=ftp://x/y|rc=1 |'benchboot.suite=ftp://x/y': suite URL must be
benchboot.suite=../etc|rc=1 |suite must be a NAME
benchboot.key=0123456789abcdef benchboot.lab=rack-1.b|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0 relay= peers= key=0123456789abcdef lab=rack-1.b token= pin=|-
benchboot.token=s3cret benchboot.pin=sha256//AbC+/x=|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0 relay= peers= key= lab= token=s3cret pin=sha256//AbC+/x=|-
benchboot.key=0123456789abcde|rc=1 |'benchboot.key=0123456789abcde': key must be 16-256 characters
benchboot.lab=a/b|rc=1 |'benchboot.lab=a/b': lab must be
benchboot.lab=|rc=1 |'benchboot.lab=': lab must be
benchboot.pin=md5//abc|rc=1 |'benchboot.pin=md5//abc': pin must be sha256//BASE64
benchboot.target=freebsd-box.lab benchboot.role=controller|rc=0 role=controller id= controller= suite= upload= poweroff=0 debug=0 relay= peers= key= lab= token= pin= target=freebsd-box.lab|-
benchboot.target=10.0.0.9|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0 relay= peers= key= lab= token= pin= target=10.0.0.9|-
benchboot.target=[fe80::1]|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0 relay= peers= key= lab= token= pin= target=[fe80::1]|-
benchboot.target=10.0.0.9:80|rc=1 |'benchboot.target=10.0.0.9:80': target must be a host
benchboot.target=bad_host|rc=1 |'benchboot.target=bad_host': target must be a host
benchboot.suite=/results/suites/lab1|rc=0 role=client id= controller= suite=/results/suites/lab1 |-
benchboot.suite=/results/../etc/x|rc=1 |suite PATH must be
benchboot.upload=/results|rc=1 |'benchboot.upload=/results': upload must be an
benchboot.suite="a b"|rc=1 |'benchboot.suite=a b': value must not contain spaces
benchboot.upload=http://x/$(reboot)|rc=1 |value must not contain
benchboot.role=bogus benchboot.frob=1 benchboot.id=ok|rc=1 role=client id=ok |'benchboot.frob=1': unknown parameter
benchboot.relay=169.254.0.1:2525 benchboot.peers=4|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0 relay=169.254.0.1:2525 peers=4|-
benchboot.relay=sink.lab|rc=1 |'benchboot.relay=sink.lab': relay must be HOST:PORT
benchboot.relay=sink:0|rc=1 |relay must be HOST:PORT
benchboot.peers=x|rc=1 |'benchboot.peers=x': peers must be a number
benchboot.peers=1000|rc=1 |peers must be a number
benchboot.time_scale=0.1|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0 relay= peers= key= lab= token= pin= target= time_scale=0.1|-
benchboot.time_scale=1/20|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0 relay= peers= key= lab= token= pin= target= time_scale=1/20|-
benchboot.time_scale=fast|rc=1 |'benchboot.time_scale=fast': time_scale must be a factor
benchboot.run_id=lab3-2026-12-01.a|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0 relay= peers= key= lab= token= pin= target= time_scale= run_id=lab3-2026-12-01.a|-
benchboot.set=http_timeout=10s,sql_timeout=30s|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0 relay= peers= key= lab= token= pin= target= time_scale= run_id= set=http_timeout=10s,sql_timeout=30s|-
benchboot.set=smtp_from=a@b.test|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0 relay= peers= key= lab= token= pin= target= time_scale= run_id= set=smtp_from=a@b.test|-
benchboot.set=http_timeout|rc=1 |set must be NAME=VALUE
benchboot.set=a=1,,b=2|rc=1 |set must be NAME=VALUE
benchboot.set=1a=2|rc=1 |set must be NAME=VALUE
benchboot.set=a=x;reboot|rc=1 |set must be NAME=VALUE
benchboot.run_id=.hidden|rc=1 |'benchboot.run_id=.hidden': run_id must be 1-200
benchboot.run_id=a/b|rc=1 |run_id must be 1-200
benchboot.time_scale=0.1.2|rc=1 |time_scale must be a factor
benchboot.if=eth1|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0 relay= peers= key= lab= token= pin= target= time_scale= run_id= set= if=eth1|-
benchboot.if=52:54:00:BB:20:0A|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0 relay= peers= key= lab= token= pin= target= time_scale= run_id= set= if=52:54:00:bb:20:0a|-
benchboot.if=enp3s0f1.100|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0 relay= peers= key= lab= token= pin= target= time_scale= run_id= set= if=enp3s0f1.100|-
benchboot.if=Eth0|rc=0 role=client id= controller= suite= upload= poweroff=0 debug=0 relay= peers= key= lab= token= pin= target= time_scale= run_id= set= if=Eth0|-
benchboot.if=52:54:00:bb:20|rc=1 |'benchboot.if=52:54:00:bb:20': if must be an interface NAME
benchboot.if=52:54:00:bb:20:0g|rc=1 |if must be an interface NAME
benchboot.if=eth0/1|rc=1 |if must be an interface NAME
benchboot.if=abcdefghijklmnop|rc=1 |if must be an interface NAME
benchboot.if=..|rc=1 |if must be an interface NAME
EOT

# Every error is counted, each on its own line.
n=$(parse "benchboot.role=bogus benchboot.frob=1 benchboot.debug=x" | tail -n +2 | wc -l)
check_eq "three bad parameters give three error lines" "$n" 3
tap_done
