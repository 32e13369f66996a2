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

# check_parsed NAME GOT WANT ERR: one row of a parser's table: GOT's first
# line starts with WANT, and its other lines contain ERR ("-": are empty).
check_parsed() {
	_first=$(echo "$2" | head -n 1)
	_rest=$(echo "$2" | tail -n +2)
	case $_first in
	"$3"*) ok "$1 -> $3" ;;
	*) not_ok "$1 -> $3"; diag "  got: $_first" ;;
	esac
	if [ "$4" = - ]; then
		check_eq "$1: no error" "$_rest" ""
	else
		case $_rest in
		*"$4"*) ok "$1: error names $4" ;;
		*) not_ok "$1: error names $4"; diag "  got: $_rest" ;;
		esac
	fi
}

tap_done() {
	echo "1..$tap_n"
	echo "# $((tap_n - tap_fail)) passed, $tap_fail failed"
	[ $tap_fail = 0 ]
}
