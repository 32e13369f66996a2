# stick.sh: the USB stick's BBRESULTS partition, sourced by /init (after
# params.sh): mounting it on /results, and the field test's parameters
# (benchboot.field=1, the stick's menu), which come from the stick too.

# The field test's parameter file on the stick (BBRESULTS:benchboot/
# params.txt): one benchboot.KEY=VALUE a line, '#' comments, blank lines.
BB_STICK_PARAMS=/results/benchboot/params.txt
# Its errors, kept for the role's console (a test sets both elsewhere).
BB_STICK_ERRORS=/run/benchboot/stick-errors
# What benchboot.field=1 means before the stick's file and the command
# line: results to the stick (its spool is there anyway), the default
# suite, power off when done (a field test is over when the screen is).
BB_FIELD_DEFAULTS="benchboot.upload=file:///results benchboot.suite=default \
benchboot.poweroff=1"

# bb_stick_mount: mount the partition labelled BBRESULTS on /results
# (read-write, flushed promptly) and name its device in
# /run/benchboot/stick.  usb-storage reports a stick a moment after its
# controller is up: with the driver loaded, look for 3 s.  Returns 0 when
# mounted.
bb_stick_mount() {
	local dev t=0
	mkdir -p /results
	while :; do
		dev=$(findfs LABEL=BBRESULTS 2>/dev/null)
		[ -n "$dev" ] && break
		grep -q '^usb_storage ' /proc/modules 2>/dev/null || return 1
		[ $t -ge 30 ] && return 1
		usleep 100000
		t=$((t + 1))
	done
	if mount -t vfat -o rw,noatime,flush "$dev" /results; then
		echo "$dev" >/run/benchboot/stick
		return 0
	fi
	bb_say "benchboot: WARNING: cannot mount $dev (BBRESULTS)" \
		"on /results; results stay in RAM"
	return 1
}

# bb_stick_lines FILE: FILE's parameter lines as "N<TAB>TEXT" (N its line
# number), without CR (a file written on Windows), a UTF-8 BOM, leading or
# trailing blanks, comments and blank lines; at most 64 KiB of it.
bb_stick_lines() {
	head -c 65536 "$1" | awk '{
		sub(/\r$/, "")
		if (NR == 1) sub(/^\357\273\277/, "")
		sub(/^[ \t]+/, ""); sub(/[ \t]+$/, "")
		if ($0 == "" || substr($0, 1, 1) == "#") next
		print NR "\t" $0
	}'
}

# bb_stick_params FILE: check FILE line by line with the command line's
# rules; print its parameters on one line.  Every bad line is one error
# naming FILE and the line, appended to $BB_STICK_ERRORS;
# returns 1 when there was any.  The role and benchboot.field belong to
# the menu entry (the server entry loads the server overlay).
bb_stick_params() {
	local f=$1 n line msg toks= bad=0
	while IFS='	' read -r n line; do
		[ -n "$n" ] || continue
		case $line in
		*[[:space:]]*) msg="'$line': one benchboot.KEY=VALUE a line" ;;
		benchboot.field=* | benchboot.role=*)
			msg="'$line': the menu entry sets ${line%%=*} (a file \
benchboot/server on the stick makes the server entry the default)" ;;
		benchboot.*) msg=$(bb_params_parse "$line" |
			sed 's/^benchboot: kernel parameter //') ;;
		*) msg="'$line': not a benchboot.KEY=VALUE line" ;;
		esac
		if [ -n "$msg" ]; then
			echo "benchboot: $f line $n: $msg" \
				>>"$BB_STICK_ERRORS"
			bad=1
		else
			toks="$toks $line"
		fi
	done <<EOT
$(bb_stick_lines "$f")
EOT
	echo "${toks# }"
	[ $bad = 0 ]
}

# bb_field_params CMDLINE: with benchboot.field=1, parse again: the field
# defaults, then the stick's file, then CMDLINE (what the entry or `e`
# says wins).  Prints every error (the file's first) and counts them in
# BB_PARAM_ERRORS; without a mounted BBRESULTS that is an error too (a
# field result must not stay in RAM).
bb_field_params() {
	local toks nerr=0
	rm -f "$BB_STICK_ERRORS"
	if ! mountpoint -q /results; then
		echo "benchboot: benchboot.field=1: no BBRESULTS partition" \
			"found to write the result to (boot from the stick)"
		nerr=1
	elif [ -f "$BB_STICK_PARAMS" ]; then
		toks=$(bb_stick_params "$BB_STICK_PARAMS") ||
			nerr=$(wc -l <"$BB_STICK_ERRORS")
		cat "$BB_STICK_ERRORS" 2>/dev/null
	fi
	bb_params_parse "$BB_FIELD_DEFAULTS $toks $1"
	BB_PARAM_ERRORS=$((BB_PARAM_ERRORS + nerr))
}
