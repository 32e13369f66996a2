#!/bin/sh
# 009_module_graph.sh: the payload's module graph (who includes whose
# header) has no cycle but the command table's registry edge, and the
# layering docs/architecture.md draws holds: the controller, the session
# and the pure modules never reach up into the agent or the table; every
# function over 80 lines says why in a comment.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
. "$TOP/payload/tests/lib/tap.sh"
cd "$TOP/payload/src" || exit 1

# edges: "MODULE HEADER-MODULE" for every project header a .c includes
# (a module's private headers, NAME_int.h and NAME_os.h, count as NAME).
edges() {
	for f in *.c; do
		m=${f%.c}
		sed -n 's/^#include "\([a-z_0-9]*\)\.h".*/\1/p' "$f" |
		sed 's/_int$//; s/_os$//' |
		while read -r h; do
			[ "$h" = "$m" ] || [ "$h" = bb_pins ] || echo "$m $h"
		done
	done | sort -u
}

# reach A B: whether B is reachable from A over the edges (not via the
# registry edge agent -> cmd, which the table's own down-edges close).
reach() {
	awk -v a="$1" -v b="$2" '
	$1 == "agent" && $2 == "cmd" { next }
	{ adj[$1] = adj[$1] " " $2 }
	END {
		q[0] = a; n = 1; seen[a] = 1
		for (i = 0; i < n; i++) {
			k = split(adj[q[i]], v, " ")
			for (j = 1; j <= k; j++) {
				if (v[j] == b) { print "yes"; exit }
				if (!seen[v[j]]) { seen[v[j]] = 1; q[n++] = v[j] }
			}
		}
		print "no"
	}' "$EDGES"
}

EDGES=$(mktemp)
trap 'rm -f "$EDGES"' EXIT
edges >"$EDGES"
check "the graph has edges ($(wc -l <"$EDGES") includes)" test -s "$EDGES"

cycles=
while read -r a b; do
	[ "$a" = agent ] && [ "$b" = cmd ] && continue
	[ "$(reach "$b" "$a")" = yes ] && cycles="$cycles $a->$b"
done <"$EDGES"
check_eq "no cycle but the registry edge agent -> cmd" "$cycles" ""

# Table: module, a module it must never reach (directly or not).
while read -r from to; do
	check_eq "$from never reaches $to" "$(reach "$from" "$to")" no
done <<'TABLE'
runner agent
runner session
runner cmd
session agent
session runner
session cmd
series cmd
node cmd
peer cmd
result runner
result ctl
result node
ctl runner
suite runner
loadgen agent
http agent
sql agent
smtp agent
TABLE

# Functions over 80 lines need a reason in the comment above them, saying
# "Over 80 lines on purpose: why" (docs/developer.md).
long=$(awk '
	/^\/\*/ { cmt = "" }
	/^\/\*/, /\*\/$/ { cmt = cmt $0 }
	/^[a-zA-Z].*\(/ && !/;$/ { name = $0; why = cmt }
	/^\{/ { if (name != "") s = FNR }
	/^\}/ {
		if (s && FNR - s > 80 && why !~ /Over 80 lines on purpose/)
			printf "%s:%d ", FILENAME, s
		s = 0; name = ""; cmt = ""
	}' *.c)
check_eq "every function over 80 lines says why in its comment" "$long" ""
tap_done
