#!/bin/sh
# kconfig-check.sh FRAGMENT CONFIG: after olddefconfig, check that every
# option FRAGMENT sets (CONFIG_X=v or "# CONFIG_X is not set") came out so
# in CONFIG; Kconfig silently drops an option whose dependencies fail.  An
# option switched off may be absent (its menu is off too).
set -eu

frag=$1 config=$2
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) want=$line ;;
	"# CONFIG_"*" is not set") want=$line ;;
	*) continue ;;
	esac
	grep -qxF "$want" "$config" && continue
	opt=$(echo "$want" | sed 's/^# //; s/[= ].*//')
	got=$(grep -E "^(# )?$opt[= ]" "$config" || echo "(absent)")
	case $want$got in
	"# "*"(absent)") continue ;;
	esac
	echo "error: $frag: '$want' did not hold, the config has '$got'" >&2
	bad=1
done <"$frag"
exit $bad
