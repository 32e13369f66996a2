# console.sh: messages for whoever watches the machine.  The kernel may
# have several consoles (console=tty0 console=ttyS0,115200: VGA and serial)
# but /dev/console is only the last one, so status lines go to each.

# bb_consoles: the device names of every registered console (ttyS0 tty0),
# or "console" when /proc/consoles cannot tell.
bb_consoles() {
	local c
	c=$(awk '{print $1}' /proc/consoles 2>/dev/null)
	echo "${c:-console}"
}

# bb_say LINE...: print LINE on every console (and once to the kernel log,
# so it survives in dmesg).
bb_say() {
	local c
	for c in $(bb_consoles); do
		[ -c "/dev/$c" ] && echo "$*" 2>/dev/null >"/dev/$c"
	done
	echo "$*" 2>/dev/null >/dev/kmsg
	return 0
}
