# tap.sh: TAP output for shell tests (sourced).  check CMD... runs CMD and
# reports it; ok/not_ok report a condition already decided; tap_done ends
# the test with the plan and the exit status.
tap_n=0
tap_fail=0

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() {
	tap_n=$((tap_n + 1)) tap_fail=$((tap_fail + 1))
	echo "not ok $tap_n - $*"
}
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $* # SKIP"; }
diag() { echo "# $*"; }

# check DESCRIPTION CMD...: ok when CMD exits 0.
check() {
	_d=$1
	shift
	if "$@"; then ok "$_d"; else not_ok "$_d"; fi
}

# check_eq DESCRIPTION GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "  got '$2', want '$3'"
	fi
}

tap_done() {
	echo "1..$tap_n"
	echo "# $((tap_n - tap_fail)) passed, $tap_fail failed"
	[ $tap_fail = 0 ]
}
