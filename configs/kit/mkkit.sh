#!/bin/sh
# mkkit.sh OUT.tar.gz: packs the server kit for an admin to copy to the
# machine under test: install.sh, the system table's scripts
# (system-facts.sh; system-facts.ps1 for Windows) and the Perl CGI, with
# the image's own content generator, SQL, CGI and settings under server/
# (the same files the server overlay carries, so the bytes served are
# the image's).
# docs/own-server.md.
set -eu
[ $# = 1 ] || { echo "usage: mkkit.sh OUT.tar.gz" >&2; exit 2; }
kit=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
d=$work/benchboot-kit
mkdir -p "$d/server"
cp "$kit/install.sh" "$kit/system-facts.sh" "$kit/system-facts.ps1" \
	"$kit/hello-perl.cgi" "$d/"
for f in server-start bench.sql hello.cgi my.cnf postfix-main.cf; do
	cp "$kit/../server/$f" "$d/server/"
done
(cd "$work" && tar -cf - benchboot-kit) | gzip -9 -n >"$out"
echo "$out"
