#!/bin/sh
# 009_module_graph.sh: the payload's call graph, read off the built objects
# with nm (who defines and who uses each symbol), has no cycle between
# modules nor between folders, and keeps the layering docs/architecture.md
# draws; every .c has a header of its own; every function over 80 lines
# says why in a comment.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
. "$TOP/payload/tests/lib/tap.sh"
NM=${NM:-nm}
B=${PAYLOAD_BUILD:?PAYLOAD_BUILD is not set}
cd "$TOP/payload/src" || exit 1

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# Module = an object's path under the build without .o (load/http/http);
# folder = its directory (load/http).  main only calls down.
SRCS=$(find . -name '*.c' ! -path './sysmon/os/*' | sed 's|^\./||' | sort)
for s in $SRCS; do
	o="$B/${s%.c}.o"
	if [ ! -f "$o" ]; then
		echo "$s" >>"$W/missing"
		continue
	fi
	"$NM" "$o" 2>/dev/null | awk -v m="${s%.c}" '
		$1 == "U" { print "U", m, $2; next }
		NF == 3 && $2 ~ /^[TDBRCVW]$/ { print "D", m, $3 }'
done >"$W/syms"
check_eq "every module's object is built (make payload)" \
	"$(cat "$W/missing" 2>/dev/null)" ""
check "the objects define symbols ($(grep -c '^D' "$W/syms") found)" \
	grep -q '^D' "$W/syms"

# Edges "USER DEFINER" between modules, and between folders.
awk '$1 == "D" { def[$3] = $2 }
     $1 == "U" { use[n++] = $2 " " $3 }
     END { for (i = 0; i < n; i++) { split(use[i], u, " ")
		if ((u[2] in def) && def[u[2]] != u[1])
			print u[1], def[u[2]] } }' "$W/syms" | sort -u >"$W/edges"
awk '{ a = $1; b = $2; sub(/\/[^\/]*$/, "", a); sub(/\/[^\/]*$/, "", b)
	if (a != b) print a, b }' "$W/edges" | sort -u >"$W/fedges"
check "the graph has edges ($(wc -l <"$W/edges") between modules)" \
	test -s "$W/edges"

# cycles FILE: every edge A B whose B reaches A again, as "A->B".
cycles() {
	awk '{ adj[$1] = adj[$1] " " $2; e[n++] = $1 " " $2 }
	function reach(a, b,   q, h, t, k, v, j, seen) {
		q[0] = a; h = 0; t = 1; seen[a] = 1
		while (h < t) {
			k = split(adj[q[h++]], v, " ")
			for (j = 1; j <= k; j++) {
				if (v[j] == b) return 1
				if (!seen[v[j]]) { seen[v[j]] = 1; q[t++] = v[j] }
			}
		}
		return 0
	}
	END { for (i = 0; i < n; i++) { split(e[i], x, " ")
		if (reach(x[2], x[1])) printf "%s->%s ", x[1], x[2] } }' "$1"
}
check_eq "no cycle between modules (symbols)" "$(cycles "$W/edges")" ""
check_eq "no cycle between folders (symbols)" "$(cycles "$W/fedges")" ""

# reach A B: whether folder or module B is reachable from A.
reach() {
	awk -v a="$1" -v b="$2" '{ adj[$1] = adj[$1] " " $2 }
	END { q[0] = a; n = 1; seen[a] = 1
		for (i = 0; i < n; i++) {
			k = split(adj[q[i]], v, " ")
			for (j = 1; j <= k; j++) {
				if (v[j] == b) { print "yes"; exit }
				if (!seen[v[j]]) { seen[v[j]] = 1; q[n++] = v[j] }
			}
		}
		print "no" }' "$3"
}

# Table: a folder, a folder it must never reach (directly or not).
while read -r from to; do
	check_eq "folder $from never reaches $to" \
		"$(reach "$from" "$to" "$W/fedges")" no
done <<'TABLE'
lib core
lib proto
proto agent
proto controller
node agent
node controller
node core
controller agent
controller core
agent core
result controller
result node
load agent
load controller
load core
load/http agent
load/sql agent
load/smtp agent
sysmon agent
mdns node
report collector
resultdb collector
changes collector
changes core
resultdb changes
report changes
resultdb load
dbconn load
dbconn resultdb
ident host
host ident
host node
spool node
spool controller
spool agent
TABLE

# The rooms docs/architecture.md draws: a folder's "May call" column is
# the whole of what it may call directly (a folder named there covers its
# subfolders; "everything below", any).  An edge to a folder not named
# there, an arrow up the table, fails here, so the page stays the truth.
awk -F'|' '/^\| `[a-z][a-z\/]*\/` \|/ {
	f = $2; gsub(/[ `]/, "", f); sub(/\/$/, "", f)
	m = $4; gsub(/[(),]/, " ", m); printf "%s", f
	if (m ~ /everything below/) printf " *"
	n = split(m, w, " ")
	for (i = 1; i <= n; i++) printf " %s", w[i]
	printf "\n" }' "$TOP/docs/architecture.md" >"$W/rooms"
check "docs/architecture.md's table names the folders' rooms" \
	grep -q '^lib ' "$W/rooms"
up=$(awk 'NR == FNR { for (i = 2; i <= NF; i++) may[$1, $i] = 1
		room[$1] = 1; next }
	function ok(a, b,   x) {
		if (may[a, "*"]) return 1
		for (x = b; x != ""; sub(/\/?[^\/]*$/, "", x))
			if (may[a, x]) return 1
		return 0
	}
	{ a = $1
	  while (!(a in room) && a ~ /\//) sub(/\/[^\/]*$/, "", a)
	  if (!(a in room)) printf "%s(no row) ", $1
	  else if (!ok(a, $2)) printf "%s->%s ", $1, $2 }' \
	"$W/rooms" "$W/fedges")
check_eq "every folder calls only what docs/architecture.md lets it" \
	"$up" ""

# Every module is a .c/.h pair: the header is its contract.  main() has
# none (nothing calls it), and a backend's contract is its folder's
# interface header: sysmon/sample_linux.c implements sysmon/sample_os.h
# as the other systems' backends in sysmon/os/ do.
nohdr=
for s in $SRCS; do
	iface=${s%_*}_os.h
	[ "$s" = core/main.c ] || [ -f "${s%.c}.h" ] ||
		{ [ "$iface" != "${s%.c}_os.h" ] && [ -f "$iface" ]; } ||
		nohdr="$nohdr $s"
done
check_eq "every .c has a header of its own" "$nohdr" ""

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
	}' $SRCS)
check_eq "every function over 80 lines says why in its comment" "$long" ""
tap_done
