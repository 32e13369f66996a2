#!/bin/sh
# install.sh: the benchboot server kit.  Provisions what the image's
# server role sets up (the 4050-byte page, the 1000-file tree, the "Hello,
# world" CGI in two kinds, the bench databases and account, the mail
# domains bench.test and relay.test with a relay route) on an installed
# system with its own web server, database and MTA, then checks each one
# over the network and says what is missing.  Debian/Ubuntu, RHEL family,
# FreeBSD; Apache or nginx (+fcgiwrap), MariaDB or MySQL, Postfix or
# Sendmail.  docs/own-server.md.
#
# The content and SQL are the image's own (configs/server: server-start
# --content, bench.sql, hello.cgi, my.cnf, postfix-main.cf), found in
# $KIT/server (a kit tarball, configs/kit/mkkit.sh) or $KIT/../server (the
# source tree).  Every path can be overridden, so a test can provision a
# private instance (payload/tests/integration/680_kit_target.sh).
#
# usage: install.sh [options]; install.sh --help
set -u
KIT=$(cd "$(dirname "$0")" && pwd)
if [ -f "$KIT/server/bench.sql" ]; then SRV=$KIT/server
else SRV=$KIT/../server; fi
KIT_VERSION=1

say() { echo "kit: $*"; }
warn() { echo "kit: WARNING: $*" >&2; }
die() { echo "kit: ERROR: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
MISSING=0
missing() { echo "kit: MISSING: $*"; MISSING=$((MISSING + 1)); }
okay() { echo "kit: ok: $*"; }

usage() {
	cat <<'EOF'
usage: install.sh [--web apache|nginx|none] [--cgi sh|perl] [--port P]
                  [--docroot DIR] [--cgi-dir DIR] [--site FILE]
                  [--sql mariadb|mysql|none] [--sql-admin CMD] [--sql-cnf FILE]
                  [--mta postfix|sendmail|none] [--postfix-conf DIR]
                  [--mail-dir DIR] [--relay HOST:PORT] [--host ADDR]
                  [--fcgi-socket PATH] [--no-enable] [--check-only] [--facts FILE]
       install.sh [--postfix-conf DIR] --route-only HOST:PORT
Provisions the benchboot suite's content, database and mail domains on
this system's own servers, then checks them (page, query, mail).
  --web, --sql, --mta  which server to provision (default: detected; none:
                       leave that service alone, neither provisioned nor checked)
  --cgi KIND           what /cgi-bin/hello is: sh (default) or perl;
                       /cgi-bin/hello-sh and /cgi-bin/hello-perl always exist
  --port P             the web server's port (default 80)
  --docroot, --cgi-dir, --site   where the content, the CGIs and the web
                       server's site file go (default: the system's layout)
  --fcgi-socket PATH   nginx only: fcgiwrap's socket (default: the system's)
  --sql-admin CMD      the client command as an administrator
                       (default: mariadb or mysql as root over the socket)
  --sql-cnf FILE       the server settings file to write (bind-address etc.)
  --postfix-conf DIR   Postfix's config directory (default: postconf's)
  --mail-dir DIR       the bench.test maildirs (default /var/spool/benchboot-mail)
  --relay HOST:PORT    where mail for relay.test goes (a benchboot smtp-sink)
  --host ADDR          the address the check connects to (default 127.0.0.1)
  --no-enable          write files only: no service enabled, reloaded or
                       restarted (the caller starts the servers)
  --check-only         provision nothing, only check
  --route-only HOST:PORT  point relay.test at HOST:PORT, reload Postfix,
                       flush its queue, nothing else (BENCHBOOT_SERVER_RELAY
                       for a benchboot server agent on this host)
  --facts FILE         where to write what was provisioned (JSON; default
                       DOCROOT/benchboot-kit.json, served to `benchboot ident`)
Exit status: 0 when every check passed, 1 when something is missing.
EOF
}

FLAVOR=
WEB= CGI=sh PORT=80 DOCROOT= CGIDIR= SITE= SQL= SQLADMIN= SQLCNF= MTA=
PFCONF= MAILDIR=/var/spool/benchboot-mail RELAY= HOST=127.0.0.1 ENABLE=1
CHECKONLY=0 FACTS= FCGI_SOCK= ROUTEONLY=0
while [ $# -gt 0 ]; do
	case $1 in
	--web) WEB=$2; shift ;;
	--cgi) CGI=$2; shift ;;
	--port) PORT=$2; shift ;;
	--docroot) DOCROOT=$2; shift ;;
	--cgi-dir) CGIDIR=$2; shift ;;
	--site) SITE=$2; shift ;;
	--fcgi-socket) FCGI_SOCK=$2; shift ;;
	--sql) SQL=$2; shift ;;
	--sql-admin) SQLADMIN=$2; shift ;;
	--sql-cnf) SQLCNF=$2; shift ;;
	--mta) MTA=$2; shift ;;
	--postfix-conf) PFCONF=$2; shift ;;
	--mail-dir) MAILDIR=$2; shift ;;
	--relay) RELAY=$2; shift ;;
	--host) HOST=$2; shift ;;
	--no-enable) ENABLE=0 ;;
	--check-only) CHECKONLY=1 ;;
	--route-only) ROUTEONLY=1 RELAY=$2; shift ;;
	--facts) FACTS=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
case $CGI in sh | perl) ;; *) die "--cgi $CGI: want sh or perl" ;; esac
case $PORT in *[!0-9]* | '') die "--port $PORT: want a number" ;; esac
case $RELAY in '' | *:*) ;; *) die "--relay $RELAY: want HOST:PORT" ;; esac
[ -f "$SRV/bench.sql" ] || die "no $SRV/bench.sql: run from the kit or the source tree"

# --- the system: OS family and the servers installed ----------------------
OS=unknown
case $(uname -s) in
FreeBSD) OS=freebsd ;;
Darwin) OS=macos ;;
Linux)
	if [ -r /etc/os-release ]; then
		. /etc/os-release
		case " ${ID:-} ${ID_LIKE:-} " in
		*" debian "* | *" ubuntu "*) OS=debian ;;
		*" rhel "* | *" fedora "* | *" centos "*) OS=rhel ;;
		esac
	fi ;;
esac
# FreeBSD's ports live under /usr/local.
LB=/usr/local
[ "$OS" = freebsd ] || LB=

NOWEB= NOSQL= NOMTA=
if [ -z "$WEB" ]; then
	if have apache2 || have httpd || [ -x $LB/sbin/httpd ]; then WEB=apache
	elif have nginx; then WEB=nginx
	else WEB=none NOWEB=1; fi
fi
if [ -z "$SQL" ]; then
	if have mariadb; then SQL=mariadb
	elif have mysql; then SQL=mysql
	else SQL=none NOSQL=1; fi
fi
if [ -z "$MTA" ]; then
	if have postconf; then MTA=postfix
	elif [ -f /etc/mail/sendmail.cf ]; then MTA=sendmail
	else MTA=none NOMTA=1; fi
fi
say "system $OS; web $WEB, database $SQL, mail $MTA"

# Per-OS defaults (each system's documented layout; only Debian is tested
# here, see docs/own-server.md).
APACHE_MODS=
case $OS in
debian)
	: "${DOCROOT:=/srv/benchboot/www}" "${CGIDIR:=/srv/benchboot/cgi-bin}"
	[ "$WEB" = nginx ] && : "${SITE:=/etc/nginx/sites-available/benchboot}"
	: "${SITE:=/etc/apache2/sites-available/benchboot.conf}"
	[ -d /etc/mysql/mariadb.conf.d ] && : "${SQLCNF:=/etc/mysql/mariadb.conf.d/99-benchboot.cnf}"
	: "${SQLCNF:=/etc/mysql/mysql.conf.d/99-benchboot.cnf}"
	: "${FCGI_SOCK:=/run/fcgiwrap.socket}" ;;
rhel)
	: "${DOCROOT:=/srv/benchboot/www}" "${CGIDIR:=/srv/benchboot/cgi-bin}"
	[ "$WEB" = nginx ] && : "${SITE:=/etc/nginx/conf.d/benchboot.conf}"
	: "${SITE:=/etc/httpd/conf.d/benchboot.conf}"
	: "${SQLCNF:=/etc/my.cnf.d/benchboot.cnf}"
	: "${FCGI_SOCK:=/run/fcgiwrap/fcgiwrap-nginx.sock}" ;;
freebsd)
	: "${DOCROOT:=/usr/local/www/benchboot}" "${CGIDIR:=/usr/local/www/benchboot-cgi}"
	[ "$WEB" = nginx ] && : "${SITE:=/usr/local/etc/nginx/benchboot.conf}"
	: "${SITE:=/usr/local/etc/apache24/Includes/benchboot.conf}"
	: "${SQLCNF:=/usr/local/etc/mysql/conf.d/benchboot.cnf}"
	APACHE_MODS=/usr/local/etc/apache24/httpd.conf
	: "${FCGI_SOCK:=/var/run/fcgiwrap/fcgiwrap.sock}" ;;
*)
	: "${DOCROOT:=/srv/benchboot/www}" "${CGIDIR:=/srv/benchboot/cgi-bin}"
	: "${FCGI_SOCK:=/run/fcgiwrap.socket}" ;;
esac
: "${FACTS:=$DOCROOT/benchboot-kit.json}"

# --- web: content, the CGIs, the site ------------------------------------
web_content() {
	sh "$SRV/server-start" --content "$DOCROOT" ||
		die "cannot write the page and tree into $DOCROOT"
	mkdir -p "$CGIDIR" || die "cannot create $CGIDIR"
	cp "$SRV/hello.cgi" "$CGIDIR/hello-sh"
	perl=$(command -v perl || echo /usr/bin/perl)
	sed "1s|.*|#!$perl|" "$KIT/hello-perl.cgi" >"$CGIDIR/hello-perl"
	cp "$CGIDIR/hello-$CGI" "$CGIDIR/hello"
	chmod 755 "$CGIDIR/hello" "$CGIDIR/hello-sh" "$CGIDIR/hello-perl"
	have perl || warn "no perl here: /cgi-bin/hello-perl will fail"
	say "content in $DOCROOT, CGIs in $CGIDIR (/cgi-bin/hello is $CGI)"
}

apache_site() {
	[ "$PORT" = 80 ] || echo "Listen $PORT"
	cat <<SITE
# benchboot server kit (configs/kit/install.sh): the suite's page, tree
# and CGIs, the image's settings (docs/server-stack.md).
<VirtualHost *:$PORT>
	DocumentRoot $DOCROOT
	<Directory $DOCROOT>
		Options FollowSymLinks
		AllowOverride None
		Require all granted
	</Directory>
	DirectoryIndex index.html
	EnableSendfile On
	ScriptAlias /cgi-bin/ $CGIDIR/
	<Directory $CGIDIR>
		Options +ExecCGI
		AllowOverride None
		Require all granted
	</Directory>
</VirtualHost>
SITE
}

nginx_site() {
	conf=$(nginx -V 2>&1 | sed -n 's/.*--conf-path=\([^ ]*\).*/\1/p')
	cat <<SITE
# benchboot server kit (configs/kit/install.sh): the suite's page, tree
# and CGIs; nginx has no CGI of its own, fcgiwrap forks each one.
server {
	listen $PORT;
	root $DOCROOT;
	index index.html;
	access_log off;
	sendfile on;
	location ~ ^/cgi-bin/([a-z-]+)\$ {
		include ${conf%/*}/fastcgi_params;
		fastcgi_param SCRIPT_FILENAME $CGIDIR/\$1;
		fastcgi_pass unix:$FCGI_SOCK;
	}
}
SITE
}

# svc NAME ACTION: a service through the system's service manager.
svc() {
	if [ "$OS" = freebsd ]; then service "$1" "$2"
	elif have systemctl && [ -d /run/systemd/system ]; then systemctl "$2" "$1"
	else service "$1" "$2"; fi
}

web_enable() {
	case $OS/$WEB in
	debian/apache)
		a2enmod -q cgi && a2ensite -q benchboot || return 1
		[ "$PORT" != 80 ] || a2dissite -q 000-default 2>/dev/null
		apache2ctl configtest && svc apache2 restart ;;
	rhel/apache) apachectl configtest && svc httpd restart ;;
	freebsd/apache)
		# The port's httpd.conf loads mod_cgid only when uncommented.
		sed -i '' 's/^#\(LoadModule cgid_module\)/\1/' "$APACHE_MODS" &&
			sysrc apache24_enable=YES && apachectl configtest &&
			service apache24 restart ;;
	debian/nginx)
		ln -sf "$SITE" /etc/nginx/sites-enabled/benchboot || return 1
		[ "$PORT" != 80 ] || rm -f /etc/nginx/sites-enabled/default
		svc fcgiwrap.socket enable 2>/dev/null
		svc fcgiwrap.socket start && nginx -t && svc nginx reload ;;
	rhel/nginx)
		systemctl enable --now fcgiwrap@nginx.socket && nginx -t &&
			svc nginx reload ;;
	freebsd/nginx)
		f=/usr/local/etc/nginx/nginx.conf
		grep -q 'include benchboot.conf' "$f" ||
			sed -i '' 's/^http {/http {\
    include benchboot.conf;/' "$f"
		sysrc fcgiwrap_enable=YES fcgiwrap_user=www \
			fcgiwrap_socket_owner=www && service fcgiwrap restart &&
			sysrc nginx_enable=YES && nginx -t && service nginx restart ;;
	*) warn "enable the site $SITE in $WEB by hand (no recipe for $OS)"
		return 0 ;;
	esac
}

web_install() {
	web_content
	mkdir -p "$(dirname "$SITE")" || die "cannot create $(dirname "$SITE")"
	if [ "$WEB" = apache ]; then apache_site >"$SITE"
	else nginx_site >"$SITE"; fi
	say "site file $SITE"
	[ "$ENABLE" = 0 ] || web_enable ||
		missing "$WEB: the site is written but the server did not take it (see above)"
}

# --- database ----------------------------------------------------------------
sql_admin() {
	if [ -n "$SQLADMIN" ]; then $SQLADMIN "$@"; else "$SQL" -uroot "$@"; fi
}

# my.cnf's Byte.com settings (configs/server/my.cnf) without the image's
# paths and tmpfs-specific InnoDB settings.
sql_cnf() {
	echo "# benchboot server kit: the image's server settings (docs/server-stack.md)"
	echo "[mysqld]"
	awk '/^\[/ { on = ($0 == "[mysqld]"); next }
	on && /^[a-z]/ { k = $1
		if (k ~ /^(user|datadir|socket|pid-file|log-error|lc-messages-dir|character-sets-dir|port)$/) next
		if (k ~ /^innodb_/) next
		print }' "$SRV/my.cnf"
	# MySQL 8.4 loads mysql_native_password only when asked; benchboot's
	# static client has no caching_sha2_password (it needs TLS or RSA).
	# loose-: an 8.0 server that does not know the option only warns.
	[ "$FLAVOR" = mysql ] && echo "loose-mysql-native-password = ON"
	return 0
}

# mysql_native: the bench accounts in the one method benchboot's client
# speaks to MySQL (MariaDB's default already is).
mysql_native() {
	n=0
	until sql_admin -e 'SELECT 1' >/dev/null 2>&1 || [ $n -ge 30 ]; do
		sleep 1; n=$((n + 1))
	done
	for h in "'%'" "'localhost'"; do
		sql_admin -e "ALTER USER 'bench'@$h IDENTIFIED WITH mysql_native_password BY 'bench'" ||
			{ missing "mysql: the bench account cannot use mysql_native_password (MySQL 9 removed it; 8.4 needs the server restarted with $SQLCNF), so benchboot's client cannot log in"; return 1; }
	done
}

sql_install() {
	ver=$(sql_admin -N -e 'SELECT VERSION()' 2>&1) || {
		missing "$SQL: cannot connect as administrator ($ver); give --sql-admin 'mysql -uroot -pPASSWORD'"
		return 1
	}
	# bench.sql is the image's; its anonymous-account cleanup uses
	# MariaDB's mysql.global_priv, which MySQL spells differently.
	FLAVOR=mysql
	case $ver in *MariaDB*) FLAVOR=mariadb ;; esac
	case $ver in
	*MariaDB*) sql_admin <"$SRV/bench.sql" ;;
	*) { echo "DROP USER IF EXISTS ''@'localhost';"
	     grep -v 'mysql.global_priv' "$SRV/bench.sql"; } | sql_admin ;;
	esac || { missing "$SQL: bench.sql failed"; return 1; }
	say "databases bench and bench_ops, user bench/bench ($ver)"
	mkdir -p "$(dirname "$SQLCNF")" && sql_cnf >"$SQLCNF" &&
		say "server settings in $SQLCNF (bind-address 0.0.0.0, skip-name-resolve)"
	if [ "$ENABLE" != 0 ]; then
		case $OS in
		freebsd) service mysql-server restart ;;
		*) for s in mariadb mysql mysqld; do
			svc $s restart 2>/dev/null && break
		done ;;
		esac
	fi
	[ "$FLAVOR" = mariadb ] || mysql_native
}

# --- mail -----------------------------------------------------------------
pfc() { postconf ${PFCONF:+-c "$PFCONF"} "$@"; }

# pf_add KEY VALUE: VALUE added to a list parameter unless it is there.
pf_add() {
	# -n: only what main.cf sets, not Postfix's built-in default.
	cur=$(pfc -n -h "$1")
	case ", $cur, " in
	*", $2, "* | *" $2 "*) ;;
	", , ") pfc -e "$1=$2" ;;
	*) pfc -e "$1=$2, $cur" ;;
	esac
}

postfix_install() {
	cdir=$(pfc -h config_directory)
	{
		echo "@bench.test catchall/"
		i=0
		while [ $i -lt 64 ]; do echo "user$i@bench.test user$i/"; i=$((i + 1)); done
	} >"$cdir/benchboot-vmailbox"
	postfix_relay
	base=$(pfc -h virtual_mailbox_base)
	[ -z "$base" ] || [ "$base" = "$MAILDIR" ] ||
		warn "virtual_mailbox_base was $base; now $MAILDIR"
	uid=$(id -u nobody) gid=$(id -g nobody)
	mkdir -p "$MAILDIR" && chown "$uid:$gid" "$MAILDIR"
	# The image's tuning (configs/server/postfix-main.cf): no inflow
	# delay, no SMTPUTF8, no DNS for the relay's next hop.
	awk -F' *= *' '$1 ~ /^(in_flow_delay|smtputf8_enable|smtp_dns_support_level|smtp_host_lookup|virtual_mailbox_limit)$/ {
		print $1 "=" $2 }' "$SRV/postfix-main.cf" |
	while read -r kv; do pfc -e "$kv"; done
	# The relay's sink listens only while its step runs (the suite
	# starts it): mail that found it absent, and the destination Postfix
	# then marks dead, are retried within seconds, not the default 5 min.
	pfc -e queue_run_delay=2s minimal_backoff_time=2s \
		maximal_backoff_time=10s
	pfc -e "virtual_mailbox_base=$MAILDIR" \
		"virtual_mailbox_maps=texthash:$cdir/benchboot-vmailbox" \
		"virtual_uid_maps=static:$uid" "virtual_gid_maps=static:$gid" \
		"virtual_minimum_uid=$uid"
	pf_add virtual_mailbox_domains bench.test
	pf_add relay_domains relay.test
	pf_add transport_maps "texthash:$cdir/benchboot-transport"
	case $(pfc -h inet_interfaces) in
	loopback-only | localhost | 127.0.0.1)
		warn "inet_interfaces was loopback only; now all"
		pfc -e inet_interfaces=all ;;
	esac
	say "Postfix: bench.test into $MAILDIR, relay.test via $cdir/benchboot-transport"
	[ "$ENABLE" = 0 ] && return 0
	postfix ${PFCONF:+-c "$PFCONF"} reload 2>/dev/null ||
		svc postfix restart
}

# postfix_relay: the relay route (also alone: install.sh --relay H:P
# --check-only keeps everything else).
postfix_relay() {
	cdir=$(pfc -h config_directory)
	if [ -n "$RELAY" ]; then
		echo "relay.test smtp:[${RELAY%:*}]:${RELAY##*:}"
	else
		echo "relay.test retry:no smtp-sink named yet (install.sh --relay HOST:PORT)"
	fi >"$cdir/benchboot-transport"
}

sendmail_install() {
	# Untested here: the files FreeBSD's and RHEL's sendmail.mc read
	# (FEATURE access_db, mailertable, virtusertable).
	d=/etc/mail
	grep -qx bench.test $d/local-host-names 2>/dev/null ||
		echo bench.test >>$d/local-host-names
	grep -q '^@bench.test' $d/virtusertable 2>/dev/null ||
		printf '@bench.test\tnobody\n' >>$d/virtusertable
	grep -q '^To:relay.test' $d/access 2>/dev/null ||
		printf 'To:relay.test\tRELAY\n' >>$d/access
	if [ -n "$RELAY" ]; then
		[ "${RELAY##*:}" = 25 ] ||
			warn "sendmail's mailertable cannot name a port: the sink must listen on 25"
		sed -i.bak '/^relay.test/d' $d/mailertable 2>/dev/null
		printf 'relay.test\tesmtp:[%s]\n' "${RELAY%:*}" >>$d/mailertable
	fi
	for m in virtusertable access mailertable; do
		[ -f $d/$m ] && makemap hash $d/$m <$d/$m
	done
	say "Sendmail: bench.test to nobody's mailbox, relay.test relayed"
	[ "$ENABLE" = 0 ] || svc sendmail restart
}

# --- what was provisioned (served to `benchboot ident` as
# /benchboot-kit.json) ------------------------------------------------------
json_str() { printf '"%s"' "$(printf '%s' "$1" | tr -d '\n\r' | sed 's/[\\"]/\\&/g')"; }
web_version() {
	case $WEB in
	apache) for a in apache2 httpd $LB/sbin/httpd; do
		have "$a" && { "$a" -v 2>/dev/null | sed -n 's/^Server version: //p'; return; }
		done ;;
	nginx) nginx -v 2>&1 | sed 's/^nginx version: //' ;;
	esac
}
mta_version() {
	case $MTA in
	postfix) pfc -h mail_version ;;
	sendmail) sendmail -d0.1 -bt </dev/null 2>/dev/null | sed -n 's/^Version //p' | head -1 ;;
	esac
}
# The machine's system table (system-facts.sh, docs/result-schema.md):
# {} when the script is missing or says nothing a JSON object.
system_facts() {
	_s=$(sh "$KIT/system-facts.sh" 2>/dev/null | head -c 65536)
	case $_s in '{'*'}') printf '%s' "$_s" ;; *) printf '{}' ;; esac
}
write_facts() {
	sqlv=$(sql_admin -N -e 'SELECT VERSION()' 2>/dev/null)
	cat >"$FACTS.tmp" <<JSON
{"kit": $KIT_VERSION, "os": $(json_str "$OS"), "uname": $(json_str "$(uname -srm)"),
 "system": $(system_facts),
 "web": {"server": $(json_str "$WEB"), "version": $(json_str "$(web_version)"), "port": $PORT},
 "cgi": {"hello": $(json_str "$CGI"), "kinds": ["sh", "perl"]},
 "sql": {"server": $(json_str "$SQL"), "version": $(json_str "$sqlv")},
 "mail": {"server": $(json_str "$MTA"), "version": $(json_str "$(mta_version)"), "relay": $(json_str "$RELAY")}}
JSON
	mv "$FACTS.tmp" "$FACTS" && chmod 644 "$FACTS"
}

# --- checks: each service answers a real request over the network --------
PAGE_SHA=cc1d5f00066132990baf0c37fe721f810473eb2c5081b49f2a20e927339261c0
TMP=${TMPDIR:-/tmp}/bbkit.$$
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP"

# get URL: the body into $TMP/body, the head into $TMP/head (curl/wget).
get() {
	: >"$TMP/head"
	if have curl; then curl -s -m 10 -D "$TMP/head" -o "$TMP/body" "$1"
	elif have wget; then wget -q -T 10 -S -O "$TMP/body" "$1" 2>"$TMP/head"
	elif have fetch; then fetch -q -T 10 -o "$TMP/body" "$1"
	else return 127; fi
}
sha256() {
	if have sha256sum; then sha256sum "$1" | cut -c1-64
	elif have sha256; then sha256 -q "$1"
	else shasum -a 256 "$1" | cut -c1-64; fi
}

check_web() {
	u=http://$HOST:$PORT
	if ! get "$u/index.html"; then
		missing "web: no answer from $u/ (is $WEB running on port $PORT?)"
		return
	fi
	if [ "$(sha256 "$TMP/body")" = "$PAGE_SHA" ]; then okay "page $u/index.html (4050 bytes, the image's)"
	else missing "web: $u/index.html is not the 4050-byte page ($(wc -c <"$TMP/body") bytes)"; fi
	get "$u/tree/9/9/9.html" && grep -q 'tree file 999' "$TMP/body" &&
		okay "tree $u/tree/9/9/9.html" ||
		missing "web: no tree file $u/tree/9/9/9.html"
	for k in "" -sh -perl; do
		if get "$u/cgi-bin/hello$k" && grep -q '^Hello, world$' "$TMP/body"; then
			kind=$(tr -d '\r' <"$TMP/head" | sed -n 's/^ *X-Benchboot-CGI: //p')
			okay "CGI $u/cgi-bin/hello$k${kind:+ ($kind)}"
		else
			missing "web: CGI $u/cgi-bin/hello$k does not answer 'Hello, world' (CGI enabled? perl installed? fcgiwrap for nginx?)"
		fi
	done
	get "$u/benchboot-kit.json" && grep -q '"kit"' "$TMP/body" ||
		missing "web: $u/benchboot-kit.json is not served"
}

check_sql() {
	c=$SQL
	have "$c" || c=mysql
	if ! have "$c"; then missing "sql: no mariadb or mysql client to check with"; return; fi
	if r=$("$c" -h "$HOST" -P 3306 -ubench -pbench bench -N \
		-e 'SELECT VERSION(), @@version_compile_os' 2>&1); then
		okay "sql: bench@$HOST:3306 database bench: $(echo "$r" | tr '\t' ' ')"
	else
		missing "sql: bench/bench cannot query database bench on $HOST:3306: $r"
	fi
}

# smtp_send RCPT: one mail through HOST:25 (curl, else nc).
smtp_send() {
	printf 'From: bench@client.test\r\nTo: %s\r\nSubject: kit check\r\n\r\nbenchboot kit check\r\n' "$1" >"$TMP/mail"
	if have curl; then
		curl -s -m 15 "smtp://$HOST:25" --mail-from bench@client.test \
			--mail-rcpt "$1" -T "$TMP/mail"
	elif have nc; then
		{ sleep 1; printf 'EHLO kit.test\r\nMAIL FROM:<bench@client.test>\r\nRCPT TO:<%s>\r\nDATA\r\n' "$1"
		  sleep 1; cat "$TMP/mail"; printf '.\r\nQUIT\r\n'; sleep 1; } |
			nc -w 10 "$HOST" 25 >"$TMP/smtp"
		grep -q '^250 .*queued' "$TMP/smtp" || grep -q '^250 2.0.0' "$TMP/smtp"
	else return 127; fi
}

check_mail() {
	if smtp_send user0@bench.test; then okay "mail: $HOST:25 accepted user0@bench.test"
	else missing "mail: $HOST:25 did not accept mail for user0@bench.test (MTA running and listening beyond loopback?)"; return; fi
	if [ "$MTA" = postfix ] && [ -d "$MAILDIR" ]; then
		n=0
		while [ $n -lt 20 ] && [ -z "$(find "$MAILDIR/user0/new" -type f 2>/dev/null | head -1)" ]; do
			sleep 0.5; n=$((n + 1))
		done
		[ $n -lt 20 ] && okay "mail: delivered into $MAILDIR/user0" ||
			missing "mail: nothing delivered into $MAILDIR/user0 within 10 s (see the mail log)"
	fi
	smtp_send bench@relay.test && okay "mail: relay.test accepted${RELAY:+ (relayed to $RELAY)}" ||
		missing "mail: $HOST:25 refuses relay.test"
}

# --- main -------------------------------------------------------------------
# --route-only: the relay route alone, as a server agent asks before a
# relay step (protocol.md "relay"); no check, whose mail would be counted.
if [ "$ROUTEONLY" = 1 ]; then
	[ "$MTA" = postfix ] || die "--route-only: Postfix only (mail here: $MTA)"
	[ -n "$RELAY" ] || die "--route-only: want HOST:PORT"
	postfix_relay || die "cannot write the relay route"
	postfix ${PFCONF:+-c "$PFCONF"} reload >/dev/null 2>&1 ||
		die "postfix reload failed"
	postqueue ${PFCONF:+-c "$PFCONF"} -f 2>/dev/null
	say "relay.test -> $RELAY"
	exit 0
fi
if [ "$CHECKONLY" = 0 ]; then
	[ "$(id -u)" = 0 ] || warn "not root: writing system files may fail"
	case $WEB in apache | nginx) web_install ;; none) ;; *) die "--web $WEB: want apache, nginx or none" ;; esac
	case $SQL in mariadb | mysql) sql_install ;; none) ;; *) die "--sql $SQL: want mariadb, mysql or none" ;; esac
	case $MTA in postfix) postfix_install ;; sendmail) sendmail_install ;; none) ;; *) die "--mta $MTA: want postfix, sendmail or none" ;; esac
	[ "$WEB" = none ] || write_facts
elif [ -n "$RELAY" ] && [ "$MTA" = postfix ]; then
	postfix_relay && { [ "$ENABLE" = 0 ] || postfix ${PFCONF:+-c "$PFCONF"} reload; }
fi
[ "$ENABLE" = 0 ] && [ "$CHECKONLY" = 0 ] && {
	say "files written; start or reload the servers, then: $0 (the same options) --check-only"
	exit 0
}
if [ -n "$NOWEB" ]; then missing "web: no Apache or nginx found (--web)"
elif [ "$WEB" != none ]; then check_web; fi
if [ -n "$NOSQL" ]; then missing "sql: no MariaDB or MySQL found (--sql)"
elif [ "$SQL" != none ]; then check_sql; fi
if [ -n "$NOMTA" ]; then missing "mail: no Postfix or Sendmail found (--mta)"
elif [ "$MTA" != none ]; then check_mail; fi
if [ $MISSING = 0 ]; then say "everything answers: point the suite at this host (--set server=ADDR)"
else say "$MISSING thing(s) missing, see MISSING above"; exit 1; fi
