#!/bin/sh
# 669_kit_system_facts.sh: the kit's system table (configs/kit/
# system-facts.sh) on a fake Linux /sys and /proc (every field with the
# agent's name and unit, Secure Boot, lockdown, the lab key redacted; an
# empty tree: nothing guessed) and on this host (valid JSON, the model
# and MemTotal /proc gives); install.sh's facts file embeds it.
# harness: parallel
set -u
. "$(dirname "$0")/../lib/tap.sh"
if [ -n "${TARGET_RUN:-}" ]; then
	echo "1..0 # SKIP a host shell script: runs for the host ARCH only"
	exit 0
fi
RUN_DIR=$(mkdir -p "$O/test-run" && mktemp -d "$O/test-run/kitsys.XXXXXX")
trap 'rm -rf "$RUN_DIR"' EXIT
S=$TOP/configs/kit/system-facts.sh
R=$RUN_DIR/root
put() { mkdir -p "$(dirname "$R$1")" && printf '%b' "$2" >"$R$1"; }
put /sys/class/dmi/id/sys_vendor 'QEMU\n'
put /sys/class/dmi/id/product_name 'Standard PC (i440FX + PIIX, 1996)\n'
put /sys/class/dmi/id/bios_date '04/01/2014\n'
put /sys/class/dmi/id/board_vendor '\n'
put /proc/cpuinfo 'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Gold 6130 "CPU" @ 2.10GHz\nstepping\t: 4\nmicrocode\t: 0x2007006\n\nprocessor\t: 1\nmodel name\t: not this one\n'
for c in 0 1 2 3; do
	put /sys/devices/system/cpu/cpu$c/topology/physical_package_id "$((c / 2))\n"
	put /sys/devices/system/cpu/cpu$c/topology/core_id "$((c % 2))\n"
done
put /sys/devices/system/node/node0/cpulist '0-3\n'
put /sys/devices/system/cpu/cpu0/cpufreq/base_frequency '2100000\n'
put /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq '3700000\n'
put /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver 'intel_pstate\n'
put /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 'powersave\n'
put /sys/devices/system/cpu/intel_pstate/no_turbo '0\n'
put /sys/devices/system/cpu/smt/active '1\n'
put /sys/devices/system/cpu/vulnerabilities/meltdown 'Not affected\n'
put /proc/meminfo 'MemTotal:        8123456 kB\n'
put /proc/sys/kernel/osrelease '6.1.0-57-amd64\n'
put /proc/cmdline 'console=ttyS0 benchboot.key=s3cr3t benchboot.token=t0k quiet\n'
put /sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c '\006\000\000\000\001'
put /sys/kernel/security/lockdown 'none [integrity] confidentiality\n'
put /sys/devices/system/clocksource/clocksource0/current_clocksource 'tsc\n'
sh "$S" --root "$R" >"$RUN_DIR/fake.json" 2>"$RUN_DIR/fake.err"
check_eq "fake tree: exit 0" "$?" 0
check "fake tree: one JSON object" jq -e 'type == "object"' "$RUN_DIR/fake.json"
while IFS='|' read -r path want; do
	check_eq "fake tree: $path" "$(jq -c "$path" "$RUN_DIR/fake.json")" "$want"
done <<'EOF2'
.firmware|{"sys_vendor":"QEMU","product_name":"Standard PC (i440FX + PIIX, 1996)","bios_date":"04/01/2014"}
.cpu.model|"Intel(R) Xeon(R) Gold 6130 \"CPU\" @ 2.10GHz"
[.cpu.family, .cpu.model_id, .cpu.stepping, .cpu.microcode]|[6,85,4,"0x2007006"]
[.cpu.sockets, .cpu.cores, .cpu.threads, .cpu.numa_nodes]|[2,4,4,1]
[.cpu.base_mhz, .cpu.max_mhz, .cpu.scaling_driver, .cpu.governor]|[2100,3700,"intel_pstate","powersave"]
[.cpu.boost, .cpu.smt, .cpu.smt_control]|[true,true,null]
.cpu.vulnerabilities|{"meltdown":"Not affected"}
.memory|{"total_kb":8123456}
.kernel|{"release":"6.1.0-57-amd64","cmdline":"console=ttyS0 benchboot.key=(redacted) benchboot.token=(redacted) quiet","secure_boot":true,"lockdown":"integrity","clocksource":"tsc"}
EOF2
mkdir -p "$RUN_DIR/empty"
check_eq "empty tree: nothing guessed" "$(sh "$S" --root "$RUN_DIR/empty" |
	jq -c .)" '{"cpu":{},"memory":{},"kernel":{}}'

sh "$S" >"$RUN_DIR/live.json" 2>"$RUN_DIR/live.err"
check "this host: one JSON object" jq -e 'type == "object"' "$RUN_DIR/live.json"
want=$(awk -F'\t*: ' '$1 == "model name" { print $2; exit }' /proc/cpuinfo)
check_eq "this host: the model /proc/cpuinfo gives" \
	"$(jq -r '.cpu.model // empty' "$RUN_DIR/live.json")" "$want"
check_eq "this host: MemTotal" "$(jq -r .memory.total_kb "$RUN_DIR/live.json")" \
	"$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)"
check "install.sh puts it in the facts file as \"system\"" \
	grep -q '"system": $(system_facts)' "$TOP/configs/kit/install.sh"
tap_done
