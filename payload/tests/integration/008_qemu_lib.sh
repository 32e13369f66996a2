#!/bin/sh
# 008_qemu_lib.sh: qemu-tests/lib.sh (and each architecture's lib.sh)
# only defines functions when sourced: no file removed or created, no
# trap, no variable set (run.sh sources it for the KVM probe alone); and
# every boot test calls qt_init, which does that work, before anything
# else of the library.  No QEMU runs.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
O=${O:-$TOP/out}
. "$TOP/payload/tests/lib/tap.sh"
cd "$TOP" || exit 1

mkdir -p "$O/test-run"
tmp=$(mktemp -d "$O/test-run/qemulib.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Sourced as one of its tests would ($0 in the test's directory, whose log
# directory holds a canary), in a clean environment (QT_ACCEL given: were
# the library to probe KVM, it must not cost a boot here); the variables
# and traps before and after are compared.
for lib in qemu-tests/lib.sh qemu-tests/*/lib.sh; do
	t=$(ls "$(dirname "$lib")"/[0-9]*/test.sh | head -n 1)
	name=$(basename "$(dirname "$t")")
	mkdir -p "$tmp/o/qemu-tests/$name"
	: >"$tmp/o/qemu-tests/$name/canary"
	env -i PATH="$PATH" O="$tmp/o" TOP="$TOP" QT_ACCEL=tcg sh -c '
		set >"$1/before"; trap >>"$1/before"
		. "$2"
		set >"$1/after"; trap >>"$1/after"' "$TOP/$t" "$tmp" "$TOP/$lib"
	# Only what sh itself keeps ($_, the parser's line number) may move.
	changed=$(diff "$tmp/before" "$tmp/after" | grep '^[<>]' |
		grep -vE "^[<>] (_|LINENO)=")
	if [ -z "$changed" ] && [ -e "$tmp/o/qemu-tests/$name/canary" ]; then
		ok "sourcing $lib sets, traps and removes nothing"
	else
		not_ok "sourcing $lib sets, traps and removes nothing"
		[ -e "$tmp/o/qemu-tests/$name/canary" ] ||
			diag "  it emptied \$O/qemu-tests/$name"
		printf '%s\n' "$changed" | sed 's/^/#   /'
	fi
	rm -rf "$tmp/o"
done

# Every test.sh that sources a lib.sh calls qt_init next, before any
# other qt_ function (they need its variables and its trap).
for t in qemu-tests/*/test.sh qemu-tests/*/*/test.sh; do
	grep -q '^\. .*lib\.sh"$' "$t" || continue
	first=$(sed -n '/^\. .*lib\.sh"$/,$p' "$t" |
		grep -oE '\bqt_[a-z_]+' | head -n 1)
	check_eq "$t calls qt_init first" "$first" qt_init
done
tap_done
