#!/bin/sh
# 012_option_docs.sh: the docs' option tables and the commands' own tables
# cannot drift: for each page and the commands it documents, every option
# of those commands (as their generated --help lists it) has a row in one
# of the page's option tables (its first cell names `--name`), and every
# option such a row names is an option of one of them.
# harness: parallel
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
. "$TOP/payload/tests/lib/tap.sh"
BB="${TARGET_RUN:+$TARGET_RUN }${BENCHBOOT:?BENCHBOOT is not set}"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# help_opts ARGS...: the long names `benchboot ARGS --help` lists.
help_opts() {
	$BB "$@" --help 2>/dev/null |
		sed -n 's/^  \(-., \)\{0,1\} *--\([a-z0-9-]*\).*/\2/p'
}

# page_rows PAGE[+PAGE...]: the long names the first cells of the pages'
# table rows give (`-t, --threads N`, `--suite S`, `--version V`: each).
page_rows() {
	for _p in $(echo "$1" | tr '+' ' '); do
		grep '^| `-' "$TOP/docs/$_p"
	done | cut -d'|' -f2 | grep -o -- '--[a-z0-9][a-z0-9-]*' |
		sed 's/^--//' | sort -u
}

# The pages (several joined by +: what they document together), the
# commands (a mode's arguments joined by +) documented whole there, and
# those whose options the tables may also name (documented elsewhere).
while read -r page cmds also; do
	: >"$W/opts"
	for c in $(echo "$also" | tr ',' ' '); do
		# shellcheck disable=SC2046
		help_opts $(echo "$c" | tr '+' ' ') >>"$W/opts"
	done
	for c in $(echo "$cmds" | tr ',' ' '); do
		# shellcheck disable=SC2046
		help_opts $(echo "$c" | tr '+' ' ') >"$W/one"
		check "$page: $c --help lists options ($(wc -l <"$W/one"))" \
			test -s "$W/one"
		missing=
		for o in $(cat "$W/one"); do
			page_rows "$page" | grep -qx -- "$o" ||
				missing="$missing --$o"
		done
		check_eq "$page: names every option of $c" "$missing" ""
		cat "$W/one" >>"$W/opts"
	done
	extra=
	for o in $(page_rows "$page"); do
		grep -qx -- "$o" "$W/opts" || extra="$extra --$o"
	done
	check_eq "$page: its tables name only options of $cmds${also:+,$also}" \
		"$extra" ""
done <<'PAGES'
http.md http
sql.md sql,sql-ping
smtp.md smtp,smtp-sink
probe.md probe
sample.md sample
report.md report
collect.md changes,report+--db+x collect
agent.md agent collect
agent.md+collect.md collect agent,changes,report+--db+x
PAGES
tap_done
