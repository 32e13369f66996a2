# postfix.sh: a private Postfix instance for tests and benchmarks
# (sourced after servers.sh): its own config_directory, queue and
# maildir under $RUN_DIR, listening on 127.0.0.1 only.
#
# postfix_start SINK_PORT: Postfix on 127.0.0.1:$PF_PORT that delivers
# *@local.test into the maildir $PF_DIR/mail/box/ (virtual(8), any local
# part), relays *@relay.test to 127.0.0.1:SINK_PORT, answers RCPT for
# *@defer.test with 450 and *@reject.test with 554, and refuses to relay
# anything else (554).  Sets PF_DIR and PF_PORT; postfix_stop ends it.
# Elsewhere than loopback (the agent chain's network namespaces): set
# PF_ADDR (listen address), PF_PORT, PF_SINK_ADDR (where relay.test goes)
# and PF_EXEC (a command prefix, e.g. "ip netns exec NS") first.
# postfix_private_cf DIR ADDR HOSTNAME: the main.cf lines every private
# instance shares (queue, data and log under DIR, listening on ADDR only,
# no local delivery, aliases or TLS); the caller adds its own.
postfix_private_cf() {
	cat <<CF
compatibility_level = 3.6
queue_directory = $1/queue
data_directory = $1/data
meta_directory = /etc/postfix
mail_owner = postfix
setgid_group = postdrop
myhostname = $3
mydestination =
inet_interfaces = $2
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
alias_maps =
alias_database =
smtpd_tls_security_level = none
smtp_tls_security_level = none
maillog_file = $1/maillog
maillog_file_prefixes = $1
CF
}

postfix_start() {
	PF_DIR=$RUN_DIR/postfix
	: "${PF_ADDR:=127.0.0.1}" "${PF_SINK_ADDR:=127.0.0.1}" "${PF_EXEC:=}"
	[ -n "${PF_PORT:-}" ] || PF_PORT=$(free_port)
	mkdir -p "$PF_DIR/etc" "$PF_DIR/queue" "$PF_DIR/data" "$PF_DIR/mail"
	# Postfix's daemons run as postfix and nobody: they must get in.
	chmod 755 "$RUN_DIR"
	open_to_others "$RUN_DIR" "Postfix" || return 1
	chown nobody:nogroup "$PF_DIR/mail"
	chown postfix "$PF_DIR/data"
	{ postfix_private_cf "$PF_DIR" "$PF_ADDR" mx.bench.test
	cat <<CF
mydomain = bench.test
myorigin = bench.test
smtpd_relay_restrictions = reject_unauth_destination
smtpd_recipient_restrictions = check_recipient_access
	inline:{ {defer.test=DEFER_IF_PERMIT}, {reject.test=REJECT} }
virtual_mailbox_domains = local.test
virtual_mailbox_base = $PF_DIR/mail
virtual_mailbox_maps = static:box/
virtual_uid_maps = static:65534
virtual_gid_maps = static:65534
virtual_minimum_uid = 100
relay_domains = relay.test, defer.test, reject.test
transport_maps = inline:{ {relay.test=smtp:[$PF_SINK_ADDR]:$1} }
local_recipient_maps =
smtp_dns_support_level = disabled
smtp_host_lookup = native
biff = no
default_process_limit = 100
smtpd_client_connection_count_limit = 0
smtpd_error_sleep_time = 0
smtpd_soft_error_limit = 100000
smtpd_hard_error_limit = 100000
CF
	} >"$PF_DIR/etc/main.cf"
	cat >"$PF_DIR/etc/master.cf" <<CF
$PF_ADDR:$PF_PORT inet n - n - - smtpd
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
local     unix  -       n       n       -       -       local
virtual   unix  -       n       n       -       -       virtual
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
CF
	postfix -c "$PF_DIR/etc" check >"$PF_DIR/check.log" 2>&1
	$PF_EXEC postfix -c "$PF_DIR/etc" start-fg >"$PF_DIR/start.log" 2>&1 &
	SERVER_PIDS="$SERVER_PIDS $!"
	wait_for 30 $PF_EXEC sh -c "ss -Htln 'sport = :$PF_PORT' | grep -q ." || {
		echo "# postfix did not start:"
		cat "$PF_DIR/check.log" "$PF_DIR/start.log" "$PF_DIR/maillog" \
			2>/dev/null | tail -20 | sed 's/^/#   /'
		return 1
	}
}

# postfix_stop: stops the instance at once (queued mail stays queued).
postfix_stop() {
	[ -n "${PF_DIR:-}" ] || return 0
	postfix -c "$PF_DIR/etc" abort >/dev/null 2>&1
	PF_DIR=
}

# postfix_queue_empty: true when nothing is queued (all delivered).
postfix_queue_empty() {
	[ -z "$(find "$PF_DIR/queue/incoming" "$PF_DIR/queue/active" \
		"$PF_DIR/queue/deferred" "$PF_DIR/queue/maildrop" -type f \
		2>/dev/null | head -1)" ]
}

# postfix_delivered: messages delivered into the local.test maildir.
postfix_delivered() {
	find "$PF_DIR/mail/box/new" "$PF_DIR/mail/box/cur" -type f \
		2>/dev/null | wc -l
}
