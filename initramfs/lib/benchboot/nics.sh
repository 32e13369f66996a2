# nics.sh: why a machine has no link, said on its screen (sourced by
# role).  Every PCI network controller with no driver bound, and every
# firmware file a driver asked for and did not get, one line each with
# what to add; the same lines go to /run/benchboot/nics-missing, which
# the agent puts in the result (docs/drivers.md).

BB_NICS_MISSING=/run/benchboot/nics-missing

# bb_nics_missing: prints one line per missing driver or firmware.
bb_nics_missing() {
	local d class id drv
	for d in /sys/bus/pci/devices/*; do
		[ -r "$d/class" ] || continue
		class=$(cat "$d/class")
		# 0x02xxxx: a network controller (Ethernet, ...).
		case $class in 0x02*) ;; *) continue ;; esac
		[ -e "$d/driver" ] && continue
		id=$(sed 's/^0x//' "$d/vendor"):$(sed 's/^0x//' "$d/device")
		echo "no-driver pci=${d##*/} id=$id: no driver in this image for this network controller: add its module to configs/modules-$(uname -m).list (modinfo -F alias lists the IDs a module takes)"
	done
	# "DRIVER ADDR: Direct firmware load for FILE failed with error -2"
	dmesg 2>/dev/null | sed -n \
		's/.* \([^ ]*\): Direct firmware load for \([^ ]*\) failed.*/\1 \2/p' |
		sort -u | while read -r drv id; do
			echo "no-firmware pci=$drv file=$id: its driver asked for this firmware file and the image has none: add it (docs/drivers.md)"
		done
}

# bb_nics_report: the lines on every console (before READY) and in
# $BB_NICS_MISSING; nothing when every network controller has a driver.
bb_nics_report() {
	bb_nics_missing >"$BB_NICS_MISSING"
	while read -r line; do
		bb_say "BENCHBOOT-NIC $line"
	done <"$BB_NICS_MISSING"
}
