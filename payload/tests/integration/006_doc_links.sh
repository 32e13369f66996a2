#!/bin/sh
# 006_doc_links.sh: every relative link in README.md and docs/*.md names a
# file of the tree (and a heading of it, for FILE#anchor), so a page never
# sends a reader to a document the project does not have.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
. "$TOP/payload/tests/lib/tap.sh"
cd "$TOP" || exit 1

# links FILE: "LINE TARGET" for each [text](TARGET) outside fenced code
# blocks and inline code spans (an example there is not a link).
links() {
	awk '/^ *```/ { fence = !fence; next }
	fence { next }
	{
		s = $0
		gsub(/`[^`]*`/, "", s)
		while (match(s, /\]\([^) ]+\)/)) {
			print NR, substr(s, RSTART + 2, RLENGTH - 3)
			s = substr(s, RSTART + RLENGTH)
		}
	}' "$1"
}

# anchors FILE: the anchors GitHub gives FILE's headings (lower case,
# punctuation but - and _ dropped, blanks as -), one a line.
anchors() {
	awk '/^ *```/ { fence = !fence; next }
	!fence && /^#+ / {
		s = tolower($0)
		sub(/^#+ +/, "", s)
		gsub(/[^a-z0-9 _-]/, "", s)
		gsub(/ /, "-", s)
		print s
	}' "$1"
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
n=0
for f in README.md docs/*.md; do
	dir=$(dirname "$f")
	bad=
	links "$f" >"$tmp"
	while read -r line target; do
		case $target in
		http://* | https://* | ftp://* | mailto:* | tftp://* | file://*)
			continue ;;
		esac
		n=$((n + 1))
		path=${target%%#*}
		anchor=
		case $target in *'#'*) anchor=${target#*#} ;; esac
		[ -n "$path" ] && path=$dir/$path || path=$f
		if [ ! -e "$path" ]; then
			bad="$bad
$f:$line: $target: no file $path"
		elif [ -n "$anchor" ] && case $path in *.md) true ;; *) false ;;
			esac && ! anchors "$path" | grep -qxF -- "$anchor"; then
			bad="$bad
$f:$line: $target: no heading #$anchor in $path"
		fi
	done <"$tmp"
	if [ -z "$bad" ]; then
		ok "$f: every relative link resolves"
	else
		not_ok "$f: every relative link resolves"
		printf '%s\n' "$bad" | sed '/^$/d; s/^/#   /'
	fi
done

# The project's own docs are the truth: no page may send the reader to a
# document outside the tree (../shared/) or to the "DESIGN" document the
# project never had.
stray=$(grep -nE '\.\./shared/|\bDESIGN\b' README.md docs/*.md)
if [ -z "$stray" ]; then
	ok "no page points at DESIGN or ../shared/"
else
	not_ok "no page points at DESIGN or ../shared/"
	printf '%s\n' "$stray" | sed 's/^/#   /'
fi
diag "$n relative links checked"
tap_done
