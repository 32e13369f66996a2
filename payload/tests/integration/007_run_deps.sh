#!/bin/sh
# 007_run_deps.sh: `make run` on a fresh machine installs what run.sh
# needs.  From make's own database for an empty output tree: the package
# stamps `make run` depends on (directly or not) and the packages they
# install; every command qemu-tests/run.sh calls (and qemu-tests/lib.sh,
# whose KVM probe it uses) must come from one of those or from a package
# every Debian has (Essential or Priority: required).  `make run` once
# stopped at "run: qemu-system-x86_64 missing": this is the check that
# would have caught it.  `make deps` must install the same.
# harness: parallel
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
O=${O:-$TOP/out}
. "$TOP/payload/tests/lib/tap.sh"
cd "$TOP" || exit 1

mkdir -p "$O/test-run"
tmp=$(mktemp -d "$O/test-run/rundeps.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# mk ARGS...: make in this tree on an empty output tree (a fresh machine:
# no stamp exists), without what the outer make exports (its MAKEFLAGS,
# the test environment's BENCHBOOT=, PAYLOAD_BUILD=...).
mk() {
	env -i PATH="$PATH" HOME="${HOME:-/}" make --no-print-directory \
		O="$tmp/o" DL_DIR="$tmp/dl" ARCH=x86_64 "$@"
}

# installed GOAL [VAR=VALUE...]: the packages make installs on the way to
# GOAL: the stamps in GOAL's prerequisites (transitively, order-only ones
# too) whose recipe runs image/deps/host-packages.sh, each asked for its
# command line with make -n (a stamp's recipe runs nothing under -n).
installed() {
	local goal=$1 db=$tmp/db stamps s
	shift
	mk -pn "$@" help >"$db" 2>&1 || return 1
	stamps=$(awk -v goal="$goal" '
		/^# Files/ { files = 1; next }
		/^# files hash-table stats/ { files = 0 }
		!files { next }
		/^\t/ { if (t != "" && /host-packages\.sh/) pkg[t] = 1; next }
		/^$/ { t = ""; next }
		/^#/ { next }
		/^[^:=]+:([^=]|$)/ {
			t = $0; sub(/:.*/, "", t)
			d = $0; sub(/^[^:]*:/, "", d); gsub(/\|/, " ", d)
			deps[t] = deps[t] " " d
			next
		}
		{ t = "" }
		END {
			queue[1] = goal; seen[goal] = 1; n = 1
			for (i = 1; i <= n; i++) {
				if (queue[i] in pkg) print queue[i]
				m = split(deps[queue[i]], w, /[ \t]+/)
				for (j = 1; j <= m; j++)
					if (w[j] != "" && !(w[j] in seen)) {
						seen[w[j]] = 1
						queue[++n] = w[j]
					}
			}
		}' "$db")
	[ -n "$stamps" ] || return 1
	for s in $stamps; do
		mk -n "$@" "$s" | sed -n 's|^.*host-packages\.sh||p'
	done | tr ' ' '\n' | sed '/^$/d' | sort -u
}

# package CMD: the Debian package that provides the program CMD on this
# host (dpkg -S; a merged /usr has /usr/sbin/ip where iproute2 lists
# /bin/ip, and awk-like names are alternatives).
package() {
	local p d f
	p=$(command -v "$1") || return 1
	for f in "$p" "$(readlink -f "$p")" /bin/"$1" /sbin/"$1" \
		/usr/bin/"$1" /usr/sbin/"$1"; do
		d=$(dpkg -S "$f" 2>/dev/null | grep -v '^diversion' |
			sed -n '1s/[:,] .*//p' | sed 's/:.*//')
		[ -n "$d" ] && { echo "$d"; return 0; }
	done
	return 1
}

# The commands: the words in command position in run.sh and lib.sh (the
# first word of each simple command; comments and quoted text dropped,
# a $(...) inside quotes kept), and the QEMU program of each arch_vm
# entry.  Words that name no program here (variables in arithmetic, case
# labels, functions, builtins) fall out below.
words() {
	awk '
	function flush(   n, i, m, j, part, w) {
		gsub(/&&|\|\||[;|&(){}!`\n]/, "\n", code)
		n = split(code, part, "\n")
		for (i = 1; i <= n; i++) {
			m = split(part[i], w, /[ \t]+/)
			for (j = 1; j <= m; j++) {
				if (w[j] == "" || w[j] ~ /^(then|do|else|elif|if|while|until|time|exec|command|env)$/)
					continue
				if (w[j] ~ /^[A-Za-z_][A-Za-z0-9_]*=/)
					continue
				print w[j]
				break
			}
		}
		code = ""
	}
	{
		s = $0 "\n"
		for (k = 1; k <= length(s); k++) {
			c = substr(s, k, 1)
			if (sq) { if (c == "\047") sq = 0; continue }
			if (c == "\\") { k++; code = code " "; continue }
			if (dq && depth[dq] == 0) {
				if (c == "\"") { dq--; code = code "Q"; continue }
				if (substr(s, k, 2) == "$(") {
					k++; depth[dq] = 1; code = code "\n"
				}
				continue
			}
			if (c == "#" && (k == 1 || substr(s, k - 1, 1) ~ /[ \t]/)) {
				code = code "\n"; k = length(s); continue
			}
			if (c == "\047") { sq = 1; code = code "Q"; continue }
			if (c == "\"") { dq++; depth[dq] = 0; code = code "Q"; continue }
			if (dq && c == "(") depth[dq]++
			if (dq && c == ")" && --depth[dq] == 0) {
				code = code "\n"; continue
			}
			if (substr(s, k, 3) == "$((") { code = code " "; k += 2; continue }
			if (substr(s, k, 2) == "$(") { code = code "\n"; k++; continue }
			code = code c
		}
		if (!sq && !dq) flush()
	}
	END { flush() }' qemu-tests/run.sh qemu-tests/lib.sh |
		grep -E '^[A-Za-z_][A-Za-z0-9_.+-]*$' | sort -u
}
# vm_qemu ARCH: the QEMU program run.sh's arch_vm gives ARCH's VMs.
vm_qemu() {
	awk -v a="$1" '/^arch_vm\(\)/ { f = 1 } f && /^}/ { f = 0 }
		f && $1 ~ /^[a-z0-9_]+\)$/ { arch = $1; sub(/\)$/, "", arch) }
		f && arch == a && /VM_QEMU=/ {
			s = $0; sub(/.*VM_QEMU="?/, "", s); sub(/[ "].*/, "", s)
			print s; exit }' qemu-tests/run.sh
}

# Functions the two files define, and case labels ("x86_64)" names a
# program of util-linux too), are not commands.
funcs=$(sed -n -e 's/^\([A-Za-z_][A-Za-z0-9_]*\)() *{.*/\1/p' \
	-e 's/^[ \t]*\([A-Za-z0-9_.-]*\))[ \t]*$/\1/p' \
	-e 's/^[ \t]*\([A-Za-z0-9_.-]*\))[ \t].*;;.*/\1/p' \
	qemu-tests/run.sh qemu-tests/lib.sh | sort -u)
progs=
for w in $( (words; vm_qemu x86_64) | sort -u); do
	echo "$funcs" | grep -qx "$w" && continue
	case $(command -v "$w") in /*) progs="$progs $w" ;; esac
done
diag "run.sh's programs:$progs"

# depends_on PKG SETPKG...: the first SETPKG that depends on PKG
# directly (vde2 brings vde-switch, which has vde_switch).
depends_on() {
	local pk=$1 q
	shift
	for q in "$@"; do
		dpkg-query -W -f='${Depends}, ${Pre-Depends}\n' "$q" 2>/dev/null |
			tr ',|' '\n\n' | sed 's/^ *//; s/[ :(].*//' |
			grep -qx "$pk" && { echo "$q"; return 0; }
	done
	return 1
}

# check_set NAME SET CMDS...: each CMD's package is in SET (one package
# a line) or is one every Debian has; one case per package.
check_set() {
	local name=$1 set=$2 c p pk tbl=$tmp/tbl said=
	shift 2
	: >"$tbl"
	for c in "$@"; do
		if ! p=$(package "$c"); then
			not_ok "$name: $c: no Debian package provides $(command -v "$c")"
			continue
		fi
		echo "$p $c" >>"$tbl"
	done
	for pk in $(cut -d' ' -f1 "$tbl" | sort -u); do
		c=$(awk -v p="$pk" '$1 == p { printf " %s", $2 }' "$tbl")
		if echo "$set" | grep -qx "$pk"; then
			ok "$name installs $pk (for$c)"
		elif via=$(depends_on "$pk" $set); then
			ok "$name installs $pk (for$c) with $via"
		elif dpkg-query -W -f='${Essential} ${Priority}\n' "$pk" \
			2>/dev/null | grep -qE '^yes |required$'; then
			ok "$pk (for$c) is on every Debian (essential/required)"
		else
			not_ok "$name installs $pk (for$c)"
			[ -n "$said" ] || diag "  $name installs: $(echo $set)"
			said=1
		fi
	done
}

run_set=$(installed run)
if [ -n "$run_set" ]; then
	ok "make run (empty output tree) installs packages before run.sh"
else
	not_ok "make run (empty output tree) installs packages before run.sh"
	sed -n '1,20s/^/#   /p' "$tmp/db"
fi
check_set "make run" "$run_set" $progs

# The mixed-architecture run: the server on qemu-system-ppc64.
ppc=$(vm_qemu ppc64le)
if [ -z "$ppc" ]; then
	not_ok "run.sh's arch_vm names a QEMU for a ppc64le server"
elif ! command -v "$ppc" >/dev/null; then
	skip "RUN_SERVER_ARCH=ppc64le: $ppc is not installed here, so its" \
		"package cannot be looked up (make ARCH=ppc64le test installs it)"
else
	check_set "make run RUN_SERVER_ARCH=ppc64le" \
		"$(installed run RUN_SERVER_ARCH=ppc64le)" "$ppc"
fi

# README: run `make deps` as root once, and `make run` needs no root.
deps_set=$(installed deps)
missing=$(echo "$run_set" | grep -vxF -e "$deps_set" -e '')
check_eq "make deps installs every package make run does" \
	"$(echo $missing)" ""
tap_done
