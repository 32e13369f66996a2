#!/bin/sh
# system-facts.sh: the system table of a server measured through the kit
# (docs/result-schema.md, "System table"): prints one JSON object,
# {"firmware", "cpu", "memory", "kernel"}, with the field names and units
# the image's agent uses, from what this system tells: Linux /sys and
# /proc (dmidecode for the DIMMs when installed), FreeBSD sysctl, kenv
# and dmesg.boot.  A field the system does not tell is left out, never
# guessed.  install.sh puts it in /benchboot-kit.json as "system".
#
# usage: system-facts.sh [--root DIR]   (DIR: a copy of / laid out the
# same, for tests; Linux only)
set -u
R=
[ "${1:-}" = --root ] && R=$2

# JSON: a string (control characters dropped, \ and " escaped), a member
# when its value is not empty, an object of the members given.
jstr() { printf '"%s"' "$(printf '%s' "$1" | tr -d '\000-\037' | sed 's/[\\"]/\\&/g')"; }
mem() {		# mem KEY VALUE: "KEY": "VALUE", or nothing
	[ -n "$2" ] && printf '%s: %s\n' "$(jstr "$1")" "$(jstr "$2")"
}
num() {		# num KEY VALUE: "KEY": VALUE when VALUE is a decimal number
	case $2 in '' | *[!0-9]*) ;; *) printf '%s: %s\n' "$(jstr "$1")" "$2" ;; esac
}
bool() {	# bool KEY 0|1 [invert]
	case $2 in
	0) printf '%s: %s\n' "$(jstr "$1")" "$([ -n "${3:-}" ] && echo true || echo false)" ;;
	1) printf '%s: %s\n' "$(jstr "$1")" "$([ -n "${3:-}" ] && echo false || echo true)" ;;
	esac
}
obj() { printf '{%s}' "$(grep -v '^$' | paste -sd, -)"; }
rd() { [ -r "$R$1" ] && head -c 511 "$R$1" 2>/dev/null | head -1; }

# --- Linux ------------------------------------------------------------------
linux_firmware() {
	for f in sys_vendor product_name product_version board_vendor \
		board_name board_version bios_vendor bios_version bios_date; do
		mem "$f" "$(rd /sys/class/dmi/id/$f | sed 's/[[:space:]]*$//')"
	done
}
cpuinfo() {	# cpuinfo NAME: the first processor's field
	awk -F'\t*: ?' -v k="$1" '/^$/ { exit } $1 == k { print $2; exit }' \
		"$R/proc/cpuinfo" 2>/dev/null
}
linux_cpu() {
	c=$R/sys/devices/system/cpu
	m=$(cpuinfo 'model name')
	[ -n "$m" ] || m=$(cpuinfo cpu)
	mem model "$m"
	mem vendor "$(cpuinfo vendor_id)"
	num family "$(cpuinfo 'cpu family')"
	num model_id "$(cpuinfo model)"
	num stepping "$(cpuinfo stepping)"
	mem microcode "$(cpuinfo microcode)"
	t=$(for d in "$c"/cpu[0-9]*; do
		[ -r "$d/topology/physical_package_id" ] &&
		[ -r "$d/topology/core_id" ] &&
		echo "$(cat "$d/topology/physical_package_id") $(cat "$d/topology/core_id")"
	done)
	if [ -n "$t" ]; then
		num sockets "$(echo "$t" | cut -d' ' -f1 | sort -u | wc -l | tr -d ' ')"
		num cores "$(echo "$t" | sort -u | wc -l | tr -d ' ')"
		num threads "$(echo "$t" | wc -l | tr -d ' ')"
	fi
	n=$(ls -d "$R"/sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l | tr -d ' ')
	[ "$n" -gt 0 ] && num numa_nodes "$n"
	f=$(rd /sys/devices/system/cpu/cpu0/cpufreq/base_frequency)
	[ -n "$f" ] && num base_mhz "$((f / 1000))"
	f=$(rd /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq)
	[ -n "$f" ] && num max_mhz "$((f / 1000))"
	mem scaling_driver "$(rd /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver)"
	mem governor "$(rd /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor)"
	if [ -r "$c/cpufreq/boost" ]; then bool boost "$(rd /sys/devices/system/cpu/cpufreq/boost)"
	else bool boost "$(rd /sys/devices/system/cpu/intel_pstate/no_turbo)" invert; fi
	bool smt "$(rd /sys/devices/system/cpu/smt/active)"
	mem smt_control "$(rd /sys/devices/system/cpu/smt/control)"
	v=$(for f in "$c"/vulnerabilities/*; do
		[ -r "$f" ] && mem "$(basename "$f")" "$(head -1 "$f")"
	done | obj)
	[ "$v" = '{}' ] || printf '"vulnerabilities": %s\n' "$v"
}
# dmidecode -t 17's installed devices as the agent's dimms[] objects.
dimms() {
	command -v dmidecode >/dev/null || return 0
	[ -z "$R" ] || return 0
	dmidecode -t 17 2>/dev/null | awk '
	function flush() {
		if (size != "") {
			s = "{\"size_mb\": " size
			if (loc != "") s = s ", \"locator\": \"" loc "\""
			if (bank != "") s = s ", \"bank\": \"" bank "\""
			if (type != "") s = s ", \"type\": \"" type "\""
			if (sp != "") s = s ", \"speed_mts\": " sp
			if (cf != "") s = s ", \"configured_mts\": " cf
			out = out (out == "" ? "" : ", ") s "}"
		}
		size = loc = bank = type = sp = cf = ""
	}
	function clean(v) { gsub(/[\\"]/, "", v); return v }
	/^Handle / { flush() }
	/^\tSize: [0-9]+ (MB|GB|kB|TB)/ { split($0, a, " ");
		size = a[2] * (a[3] == "GB" ? 1024 : a[3] == "TB" ? 1048576 :
			a[3] == "kB" ? 1 / 1024 : 1) }
	/^\tLocator: / { loc = clean(substr($0, 11)) }
	/^\tBank Locator: / { bank = clean(substr($0, 16)) }
	/^\tType: / { t = substr($0, 8); if (t != "Unknown" && t != "Other") type = clean(t) }
	/^\tSpeed: [0-9]+ MT\/s/ { sp = $2 }
	/^\tConfigured (Memory|Clock) Speed: [0-9]+ MT\/s/ { cf = $4 }
	END { flush(); if (out != "") print "[" out "]" }'
}
linux_memory() {
	num total_kb "$(awk '$1 == "MemTotal:" { print $2 }' "$R/proc/meminfo" 2>/dev/null)"
	d=$(dimms)
	[ -n "$d" ] && printf '"dimms": %s\n' "$d"
}
linux_kernel() {
	mem release "$(rd /proc/sys/kernel/osrelease)"
	mem version "$(rd /proc/sys/kernel/version)"
	# The values of parameters that hold secrets are not shared.
	mem cmdline "$(rd /proc/cmdline | tr ' ' '\n' | sed -E \
		's/^([^=]*(key|token|secret|pass[^=]*)=).*/\1(redacted)/' | paste -sd' ' -)"
	sb=$R/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c
	if [ -r "$sb" ] && [ "$(wc -c <"$sb" | tr -d ' ')" = 5 ]; then
		bool secure_boot "$(od -An -tu1 -j4 -N1 "$sb" | tr -d ' ')"
	fi
	mem lockdown "$(rd /sys/kernel/security/lockdown | sed -n 's/.*\[\(.*\)\].*/\1/p')"
	mem clocksource "$(rd /sys/devices/system/clocksource/clocksource0/current_clocksource)"
}

# --- FreeBSD ------------------------------------------------------------------
sc() { sysctl -n "$1" 2>/dev/null; }
freebsd_firmware() {
	mem sys_vendor "$(kenv -q smbios.system.maker)"
	mem product_name "$(kenv -q smbios.system.product)"
	mem product_version "$(kenv -q smbios.system.version)"
	mem board_vendor "$(kenv -q smbios.planar.maker)"
	mem board_name "$(kenv -q smbios.planar.product)"
	mem board_version "$(kenv -q smbios.planar.version)"
	mem bios_vendor "$(kenv -q smbios.bios.vendor)"
	mem bios_version "$(kenv -q smbios.bios.version)"
	mem bios_date "$(kenv -q smbios.bios.reldate)"
}
freebsd_cpu() {
	mem model "$(sc hw.model)"
	# The boot's CPU line: Origin="GenuineIntel"  Id=0x50654  Family=0x6  Model=0x55  Stepping=4
	o=$(grep -m1 ' Origin=' /var/run/dmesg.boot 2>/dev/null)
	mem vendor "$(echo "$o" | sed -n 's/.*Origin="\([^"]*\)".*/\1/p')"
	for k in Family:family Model:model_id Stepping:stepping; do
		x=$(echo "$o" | sed -n "s/.* ${k%%:*}=\\(0x[0-9a-f]*\\|[0-9]*\\).*/\\1/p")
		[ -n "$x" ] && num "${k#*:}" "$(printf '%d' "$x")"
	done
	cores=$(sc kern.smp.cores) tpc=$(sc kern.smp.threads_per_core)
	num cores "$cores"
	num threads "$(sc kern.smp.cpus)"
	num numa_nodes "$(sc vm.ndomains)"
	f=$(sc dev.cpu.0.freq_levels | awk '{ split($1, a, "/"); print a[1] }')
	num max_mhz "$f"
	[ -n "$tpc" ] && bool smt "$([ "$tpc" -gt 1 ] && echo 1 || echo 0)"
}
freebsd_memory() {
	m=$(sc hw.physmem)
	[ -n "$m" ] && num total_kb "$((m / 1024))"
	d=$(dimms)
	[ -n "$d" ] && printf '"dimms": %s\n' "$d"
}
freebsd_kernel() {
	mem release "$(sc kern.osrelease)"
	mem version "$(sc kern.version | head -1)"
	mem clocksource "$(sc kern.timecounter.hardware)"
}

case $(uname -s) in
FreeBSD) p=freebsd ;;
*) p=linux ;;
esac
fw=$(${p}_firmware | obj)
printf '{'
[ "$fw" = '{}' ] || printf '"firmware": %s, ' "$fw"
printf '"cpu": %s, "memory": %s, "kernel": %s}\n' "$(${p}_cpu | obj)" \
	"$(${p}_memory | obj)" "$(${p}_kernel | obj)"
