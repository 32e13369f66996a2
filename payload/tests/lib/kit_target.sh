# kit_target.sh: a server we did not build, for the tests that measure one
# (integration/680_kit_target.sh, qemu-tests/long/125_run_target; sourced after
# netns.sh and servers.sh).  In a netns.sh namespace, the host's own Debian
# Apache, MariaDB and Postfix started as a stock system would (a main
# config that includes sites, an empty database, a Postfix with no
# domains), every path private, and the server kit to provision them.

KT_KIT=$TOP/configs/kit/install.sh
. "$TOP/payload/tests/lib/postfix.sh"

# kt_missing: prints the first server program this host lacks (nothing
# when it has them all).
kt_missing() {
	for _ktp in apache2 mariadbd postfix perl; do
		command -v $_ktp >/dev/null 2>&1 || [ -x /usr/sbin/$_ktp ] ||
			{ echo $_ktp; return; }
	done
}

# kt_stock NODE ADDR DIR: the stock configuration under DIR for Apache
# and Postfix (bound to ADDR), and MariaDB installed and started in
# namespace NODE.  Sets KT_NODE, KT_ADDR, KT_DIR, KT_PF (Postfix's config
# directory) and KT_SQLADMIN.  Returns 0 once MariaDB answers (60 s).
kt_stock() {
	KT_NODE=$1 KT_ADDR=$2 KT_DIR=$3
	KT_PF=$KT_DIR/postfix
	KT_SQLADMIN="mariadb --no-defaults --socket=$KT_DIR/mariadb/sock -uroot"
	mkdir -p "$KT_DIR/apache/sites" "$KT_DIR/mariadb" "$KT_PF/queue" \
		"$KT_PF/data" || return 1
	cat >"$KT_DIR/apache/apache2.conf" <<CONF
# A stock Apache's shape: modules, the MPM, and an Include of sites.
ServerName kit-target
Listen $KT_ADDR:80
PidFile $KT_DIR/apache/apache2.pid
DefaultRuntimeDir $KT_DIR/apache
ErrorLog $KT_DIR/apache/error.log
User www-data
Group www-data
LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so
LoadModule dir_module /usr/lib/apache2/modules/mod_dir.so
LoadModule alias_module /usr/lib/apache2/modules/mod_alias.so
LoadModule cgid_module /usr/lib/apache2/modules/mod_cgid.so
ScriptSock $KT_DIR/apache/cgisock
TypesConfig /etc/mime.types
IncludeOptional $KT_DIR/apache/sites/*.conf
CONF
	# Debian's own master.cf, unchrooted (the chroot would need a copy
	# of /etc in the queue); a main.cf with no domains.
	awk '/^[a-z0-9]/ && NF >= 8 { $5 = "n" } { print }' \
		/etc/postfix/master.cf >"$KT_PF/master.cf"
	postfix_private_cf "$KT_PF" "$KT_ADDR" kit-target.example \
		>"$KT_PF/main.cf"
	chown postfix "$KT_PF/data"
	# Its own tmpdir, as mariadb_start's (servers.sh says why).
	mkdir -p "$KT_DIR/mariadb/tmp"
	mariadb-install-db --no-defaults --user=root \
		--datadir="$KT_DIR/mariadb/data" \
		--tmpdir="$KT_DIR/mariadb/tmp" \
		--auth-root-authentication-method=normal --skip-test-db \
		>"$KT_DIR/mariadb/install.log" 2>&1 || return 1
	netns_spawn "$KT_NODE" "$KT_DIR/mariadb/stdout.log" mariadbd \
		--no-defaults --user=root --datadir="$KT_DIR/mariadb/data" \
		--tmpdir="$KT_DIR/mariadb/tmp" \
		--socket="$KT_DIR/mariadb/sock" --port=3306 \
		--bind-address="$KT_ADDR" --pid-file="$KT_DIR/mariadb/pid" \
		--log-error="$KT_DIR/mariadb/error.log" --skip-log-bin \
		--innodb-buffer-pool-size=64M --innodb-flush-log-at-trx-commit=2
	wait_for 60 $KT_SQLADMIN -e 'SELECT 1'
}

# kt_kit LOG ARGS...: the kit in KT_NODE with Apache, MariaDB, Postfix and
# every path private (it must not touch the host's /etc or /srv), then
# ARGS (--no-enable, --check-only, --relay ...); its output into LOG.
kt_kit() {
	_ktl=$1
	shift
	netns_exec "$KT_NODE" sh "$KT_KIT" --web apache --sql mariadb \
		--mta postfix --docroot "$KT_DIR/www" \
		--cgi-dir "$KT_DIR/cgi-bin" \
		--site "$KT_DIR/apache/sites/benchboot.conf" \
		--sql-admin "$KT_SQLADMIN" \
		--sql-cnf "$KT_DIR/mariadb/99-benchboot.cnf" \
		--postfix-conf "$KT_PF" --mail-dir "$KT_DIR/mail" \
		--host "$KT_ADDR" "$@" >"$_ktl" 2>&1
}

# kt_start: Apache and Postfix in KT_NODE, as an admin's service manager
# would once the kit wrote their files.  0 once Apache serves the kit's
# page and Postfix listens (20 s each); LOG files under KT_DIR.
kt_start() {
	netns_spawn "$KT_NODE" "$KT_DIR/apache/stdout.log" apache2 \
		-f "$KT_DIR/apache/apache2.conf" -DFOREGROUND
	wait_for 20 netns_exec "$KT_NODE" curl -sf -o /dev/null \
		"http://$KT_ADDR/index.html" || return 1
	netns_exec "$KT_NODE" postfix -c "$KT_PF" start \
		>"$KT_DIR/postfix-start.log" 2>&1
	wait_for 20 netns_exec "$KT_NODE" sh -c \
		"ss -Htln 'sport = :25' | grep -q ."
}

# kt_route_script FILE: writes FILE, an executable that points the kit's
# relay route at its argument HOST:PORT (install.sh --route-only: the
# route, a reload, a queue flush), as a server agent's
# BENCHBOOT_SERVER_RELAY or an admin would; its output goes to FILE.log.
kt_route_script() {
	cat >"$1" <<SH
#!/bin/sh
# The kit points relay.test at \$1 (kit_target.sh).
exec sh "$KT_KIT" --mta postfix --postfix-conf "$KT_PF" --route-only "\$1" \
	>"$1.log" 2>&1
SH
	chmod +x "$1"
}

# kt_mail_stop: Postfix stopped.  abort ends the master; its idle smtpd
# children would still take a connection on the inherited socket until
# they notice, so they end too.
kt_mail_stop() {
	postfix -c "$KT_PF" abort >/dev/null 2>&1
	for _ktp in $(ip netns pids "$NETNS_P$KT_NODE" 2>/dev/null); do
		case $(cat /proc/$_ktp/comm 2>/dev/null) in
		smtpd | master | qmgr | pickup | anvil | postlogd | tlsmgr)
			kill $_ktp ;;
		esac
	done
	wait_for 10 netns_exec "$KT_NODE" sh -c \
		"! ss -Htln 'sport = :25' | grep -q ."
}

# kt_versions: the host's server versions as their own programs say:
# KT_APACHE_V (apache2 -v), KT_MARIADB_V (mariadbd --version), KT_POSTFIX_V
# (mail_version).
kt_versions() {
	KT_APACHE_V=$(apache2 -v | sed -n 's/^Server version: \([^ ]*\).*/\1/p')
	KT_MARIADB_V=$(mariadbd --version | sed -n 's/.*Ver \([^ ]*\).*/\1/p')
	KT_POSTFIX_V=$(postconf -h mail_version)
}
