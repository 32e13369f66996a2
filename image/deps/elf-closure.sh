#!/bin/sh
# elf-closure.sh ROOT FILE...: the shared-library closure of ELF FILEs (paths
# inside ROOT, an unpacked tree of Debian packages), resolved from the
# DT_NEEDED and DT_RUNPATH entries `objdump -p` reads, never from the
# build host's own libraries or ldd.  Prints one line per library,
# "lib PATH" (PATH inside ROOT; symlinks are listed as found, their targets
# too), and one "missing SONAME NEEDED-BY" line per soname ROOT lacks.
# Non-ELF FILEs are skipped.  Used by pin-list.sh (to find which package
# provides a missing library) and by mkserver-overlay.sh (what to copy).
set -eu

[ $# -ge 1 ] || { echo "usage: elf-closure.sh ROOT FILE..." >&2; exit 2; }
root=$1
shift
# The multiarch triplet of the unpacked tree: where its libc lives.
for d in "$root"/lib/*-linux-gnu "$root"/usr/lib/*-linux-gnu; do
	[ -e "$d/libc.so.6" ] && { triplet=${d##*/}; break; }
done
triplet=${triplet:-$(ls -d "$root"/usr/lib/*-linux-gnu 2>/dev/null |
	head -n 1 | sed 's|.*/||')}
sysdirs="lib/$triplet usr/lib/$triplet lib usr/lib lib64"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$work/seen"
: >"$work/out"
for f in "$@"; do
	echo "$f"
done >"$work/queue"

# is_elf PATH: true for an ELF file inside ROOT.
is_elf() {
	[ -f "$root/$1" ] && [ "$(head -c 4 "$root/$1" | od -An -c |
		tr -d ' ')" = '177ELF' ]
}

# find_lib SONAME RUNPATH: the path of SONAME inside ROOT, searching the
# runpath first (as ld.so does), then the system directories.
find_lib() {
	local d
	for d in $(echo "$2" | tr ':' ' ') $sysdirs; do
		d=${d#/}
		if [ -e "$root/$d/$1" ] || [ -L "$root/$d/$1" ]; then
			echo "$d/$1"
			return 0
		fi
	done
	return 1
}

# add_path PATH: record PATH (and, for a symlink, its target chain) and
# queue it for its own DT_NEEDED.
add_path() {
	local p=$1 t
	while :; do
		grep -qxF "$p" "$work/seen" && return 0
		echo "$p" >>"$work/seen"
		echo "lib $p" >>"$work/out"
		echo "$p" >>"$work/queue"
		[ -L "$root/$p" ] || return 0
		t=$(readlink "$root/$p")
		case $t in
		/*) p=${t#/} ;;
		*) p=$(dirname "$p")/$t ;;
		esac
		# normalise a/b/../c without touching the host file system
		p=$(echo "$p" | awk -F/ '{
			n = 0
			for (i = 1; i <= NF; i++) {
				if ($i == "" || $i == ".") continue
				if ($i == "..") { if (n > 0) n--; continue }
				s[++n] = $i
			}
			o = s[1]; for (i = 2; i <= n; i++) o = o "/" s[i]
			print o }')
	done
}

while [ -s "$work/queue" ]; do
	f=$(head -n 1 "$work/queue")
	sed -i 1d "$work/queue"
	f=${f#/}
	is_elf "$f" || continue
	dump=$(objdump -p "$root/$f" 2>/dev/null) || continue
	runpath=$(echo "$dump" | awk '$1 == "RUNPATH" || $1 == "RPATH" \
		{print $2}' | sed "s|\$ORIGIN|/$(dirname "$f")|g")
	for so in $(echo "$dump" | awk '$1 == "NEEDED" {print $2}'); do
		if p=$(find_lib "$so" "$runpath"); then
			add_path "$p"
		elif ! grep -q "^missing $so " "$work/out"; then
			echo "missing $so $f" >>"$work/out"
		fi
	done
done
cat "$work/out"
