#!/bin/sh
# 680_kit_target.sh: a server we did not build, measured.  In network
# namespaces, the server namespace runs the host's own Debian Apache,
# MariaDB and Postfix, started as a stock system would (a main config
# that includes sites, an empty database, a Postfix with no domains),
# provisioned only by the server kit (configs/kit/install.sh) and with no
# benchboot agent there.  Two client agents and a controller run the smoke
# suite (shortened) against it with --set server=ADDR; every step must
# have throughput and no errors.  `benchboot ident` must name the real
# software and versions, and the kit's own check must pass.  Relayed mail
# goes to the smtp-sink the suite starts on a client (the kit's relay
# host), and the result counts what arrived.  Then once more with our
# agent on the server (sampler, probe, the relay route pointed through the
# kit's --route-only).  docs/own-server.md.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
BB=$BENCHBOOT
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
. "$TOP/payload/tests/lib/kit_target.sh"
KIT=$KT_KIT
SRV=10.78.0.1
jqt() { jq -e "$@" >/dev/null; }

if [ -n "${TARGET_RUN:-}" ]; then
	skip "agents under $TARGET_RUN cannot exec their workloads"
	tap_done
	exit 0
fi
if ! netns_available; then
	skip "network namespaces need root"
	tap_done
	exit 0
fi
if [ -n "$(kt_missing)" ]; then
	skip "no $(kt_missing) on this host (apt-get install apache2 mariadb-server postfix)"
	tap_done
	exit 0
fi
D=$RUN_DIR/target
PF=$D/postfix
kt_versions
cleanup() {
	postfix -c "$PF" abort >/dev/null 2>&1
	netns_cleanup
	servers_stop
}
trap cleanup EXIT

netns_hub || { not_ok "hub namespace"; tap_done; exit 1; }
netns_add srv $SRV && netns_add ctl 10.78.0.2 &&
	netns_add c1 10.78.0.11 && netns_add c2 10.78.0.12
ok "namespaces srv, ctl, c1, c2 on one bridge"

# --- a stock system: the daemons' own defaults, nothing of the suite's.
check "stock MariaDB up (no bench account yet)" kt_stock srv $SRV "$D"
check "no bench account before the kit" sh -c \
	"! mariadb --no-defaults -h $SRV -ubench -pbench -e 'SELECT 1' 2>/dev/null"

# --- the kit provisions it (files only; the test starts the servers as
# an admin's service manager would).  Every path private (kt_kit).
etc_sum() { cat /etc/postfix/main.cf /etc/apache2/sites-*/* 2>/dev/null | cksum; }
etc_before=$(etc_sum)
check "the kit provisions (--no-enable)" kt_kit "$D/kit-install.log" \
	--relay 10.78.0.11:2525 --no-enable
sed 's/^/#   /' "$D/kit-install.log"
check_eq "the host's /etc/postfix and /etc/apache2 untouched" "$(etc_sum)" \
	"$etc_before"
check "page written, 4050 bytes" test "$(wc -c <"$D/www/index.html")" = 4050
check "facts file written" jqt '.cgi.hello == "sh" and .sql.version != ""' \
	"$D/www/benchboot-kit.json"
check "Apache serves the kit's site, Postfix listens on $SRV:25" kt_start
check "the kit's own check passes" kt_kit "$D/kit-check.log" \
	--relay 10.78.0.11:2525 --check-only
sed 's/^/#   /' "$D/kit-check.log"
check "CGI kinds answer: sh and perl" sh -c "grep -q 'hello-sh (sh)' \
	'$D/kit-check.log' && grep -q 'hello-perl (perl)' '$D/kit-check.log'"
# The check's relay.test mail found no sink yet (the suite starts it):
# dropped, so the relay step's count is the step's mail alone.
netns_exec srv postsuper -c "$PF" -d ALL >/dev/null 2>&1

# --- ident: what the server is, seen from a client.
if $BB help | grep -q '^  ident '; then
	netns_exec c2 $BB ident $SRV --sql-user bench --sql-password bench \
		--json >"$RUN_DIR/ident.json" 2>"$RUN_DIR/ident.err"
	check "ident exits 0" test $? = 0
	sed 's/^/#   /' "$RUN_DIR/ident.json" "$RUN_DIR/ident.err" | head -40
	check_eq "HTTP Server header names Apache's version" \
		"$(jq -r '.http.server' "$RUN_DIR/ident.json" | cut -d' ' -f1)" "$KT_APACHE_V"
	check_eq "SELECT VERSION() is mariadbd --version's" \
		"$(jq -r '.sql.version' "$RUN_DIR/ident.json")" "$KT_MARIADB_V"
	check "@@version_compile_os is there" jqt '.sql.version_compile_os |
		length > 0' "$RUN_DIR/ident.json"
	check_eq "the SMTP banner names Postfix" "$(jq -r '.smtp.banner' \
		"$RUN_DIR/ident.json" | sed -n 's/.* ESMTP \(Postfix\).*/\1/p')" \
		Postfix
	check_eq "the kit's facts name Postfix's mail_version" "$(jq -r \
		'.kit.mail.version' "$RUN_DIR/ident.json")" \
		"$KT_POSTFIX_V"
	check "EHLO extensions listed (PIPELINING)" jqt '.smtp.ehlo |
		index("PIPELINING") != null' "$RUN_DIR/ident.json"
	check_eq "the CGI's kind" "$(jq -r '.http.cgi' "$RUN_DIR/ident.json")" sh
	check_eq "the server's MAC from the neighbour table" \
		"$(jq -r '.net.mac' "$RUN_DIR/ident.json")" 52:54:00:bb:00:01
	check "TCP facts: MSS > 0" jqt '.net.tcp.snd_mss > 0' \
		"$RUN_DIR/ident.json"
else
	skip "this binary has no ident"
fi

# --- the suite: smoke's steps, short, against the kit-provisioned host.
sed -e 's/^servers .*/servers 0/' -e 's/^wait .*/wait 30s/' \
	-e 's/^warmup .*/warmup 300ms/' -e 's/^duration .*/duration 2s/' \
	-e 's/^cooldown .*/cooldown 200ms/' -e 's/^\(\tduration\) .*/\1 2s/' \
	"$TOP/configs/suite/smoke.suite" >"$RUN_DIR/kit.suite"
grep -q '^	sink ' "$RUN_DIR/kit.suite" ||
	sed -i '/^step smtp-relay/a\	sink 2525' "$RUN_DIR/kit.suite"
# run_suite TAG SUITE ARGS...: two client agents (CLIENT_OPTS theirs) and
# a controller (ARGS its own) run SUITE; the result's path into $res.
run_suite() {
	_t=$1 _s=$2
	shift 2
	for c in c1 c2; do
		netns_spawn $c "$RUN_DIR/$c-$_t.log" $BB agent --role=client \
			--controller 10.78.0.2 --once $CLIENT_OPTS
	done
	start=$(date +%s)
	netns_exec ctl $BB agent --role=controller --id "ctl-$_t" \
		--listen 10.78.0.2:7407 --suite "$_s" --wait 30s \
		--spool "$RUN_DIR/spool-$_t" "$@" \
		>"$RUN_DIR/ctl-$_t.out" 2>"$RUN_DIR/ctl-$_t.log"
	_rc=$?
	diag "controller ($_t) finished in $(($(date +%s) - start)) s"
	check_eq "$_t: controller exit status" "$_rc" 0
	[ $_rc = 0 ] || tail -30 "$RUN_DIR/ctl-$_t.log" | sed 's/^/#   /'
	res=$(cat "$RUN_DIR/ctl-$_t.out")
	check "$_t: result written: $res" test -s "$res"
}
# steps_ok TAG [JQ LABEL]: every step of $res complete, with throughput
# and no errors (and JQ of its first repeat, said as LABEL).
steps_ok() {
	for s in http-static http-tree http-cgi sql-ops sql-mix smtp-in \
		smtp-relay combined; do
		check "$1: $s: complete, throughput > 0, no errors${3:+, $3}" \
			jqt --arg s "$s" '
		[.steps[] | select(.name | startswith($s + "/") or . == $s)][0] |
		.complete_repeats == 1 and
		([.repeats[0].merged[] | .counters | (.requests // .statements //
		  .mails // .ops // 0)] | add) > 0 and
		([.repeats[0].merged[] | .errors // {} | .[]] | add // 0) == 0 and
		(.repeats[0] | '"${2:-true}"')' "$res"
	done
}
# An open lab: the clients load a host no benchboot server announces only
# when their own command line names it (docs/security.md).
CLIENT_OPTS="--target $SRV"
run_suite kit "$RUN_DIR/kit.suite" --set server=$SRV \
	--set sink_host=10.78.0.11
check_eq "no server agent: hosts are the controller and two clients" \
	"$(jq '.environment.hosts | length' "$res")" 3
steps_ok kit
# The result says what the server was (the controller asked it, ident.h).
check_eq "result: server_identity names Apache's version" "$(jq -r \
	'.server_identity.http.server' "$res" | cut -d' ' -f1)" \
	"$KT_APACHE_V"
check_eq "result: server_identity names MariaDB's version" "$(jq -r \
	'.server_identity.sql.version' "$res")" \
	"$KT_MARIADB_V"
check "result: server_identity has the SMTP banner and the kit's facts" \
	jqt '.server_identity | (.smtp.banner | test("ESMTP Postfix")) and
	.kit.cgi.hello == "sh"' "$res"
# The kit's system table (system-facts.sh) came through ident into the
# result, and the report shows it as the kit server's column.
check_eq "result: the kit's system table (its kernel release)" "$(jq -r \
	'.server_identity.kit.system.kernel.release' "$res")" "$(uname -r)"
# Three levels deep and arrays of objects come through; what is cut is
# absent, never an empty array saying there is none.
if [ -d /sys/devices/system/cpu/vulnerabilities ]; then
	check "result: the kit's cpu.vulnerabilities came through" jqt \
		'.server_identity.kit.system.cpu.vulnerabilities |
		type == "object" and length > 0' "$res"
fi
check "result: the kit's memory.dimms absent or not empty" jqt \
	'.server_identity.kit.system.memory.dimms | . == null or length > 0' \
	"$res"
check "report: a kit server column in the system table" sh -c \
	"$BB report '$res' | grep -q ' A kit server'"
# relay_ok RESULT SINK: the relay step's mail left the server for the
# suite's sink: what the clients sent, less what Postfix still queues.
relay_ok() {
	_q=$(netns_exec srv postqueue -c "$PF" -j 2>/dev/null | grep -c relay.test)
	jq -c '.steps[] | select(.name | startswith("smtp-relay")) |
		.repeats[0].relay' "$1" | sed 's/^/#   relay: /'
	check "relay: the suite's sink on $2 received mail" jqt --arg s "$2" '
	[.steps[] | select(.name | startswith("smtp-relay"))][0] |
	.repeats[0].relay | .sink == $s and .sent > 0 and .received > 0' "$1"
	check "relay: received what the clients sent, less $_q still queued" \
		jqt --argjson q "$_q" '[.steps[] |
		select(.name | startswith("smtp-relay"))][0] | .repeats[0].relay |
		.received == .sent - $q and .not_received == $q' "$1"
	netns_exec srv postsuper -c "$PF" -d ALL >/dev/null 2>&1
	check "relay: the sink's count is not load (workloads: smtp only)" \
		jqt '[.steps[] | select(.name | startswith("smtp-relay"))][0] |
		[.repeats[0].merged | keys[]] == ["smtp"]' "$1"
}
relay_ok "$res" 10.78.0.11:2525
check "no server agent: every repeat says there are no server figures" jqt \
	'[.steps[].repeats[] | .server_figures | startswith("none")] | all' \
	"$res"

# --- once more with our agent on the kit-provisioned server: its sampler
# and probe, and the relay route pointed at the suite's sink by the kit
# (--route-only), as the agent asks before the relay step.
kt_route_script "$D/relay-route"
# 2 s steps: the sampler's 1 Hz records must fall inside each window and
# reach the controller before it collects the repeat.
sed 's/^servers .*/servers 1/' "$RUN_DIR/kit.suite" >"$RUN_DIR/kit-agent.suite"
netns_spawn srv "$RUN_DIR/srv-agent.log" env \
	BENCHBOOT_SERVER_RELAY="$D/relay-route" $BB agent --role=server \
	--controller 10.78.0.2 --once --procs apache2,mariadbd,master,smtpd
CLIENT_OPTS=
run_suite agent "$RUN_DIR/kit-agent.suite"
ares=$res
check_eq "agent on the server: hosts are controller, server, two clients" \
	"$(jq '[.environment.hosts[].role] | sort | join(",")' "$ares")" \
	'"client,client,controller,server"'
# sql-ops is fixed work: on a quick run it ends inside one of the
# sampler's 1 s periods, and a step gets no sample then (documented in
# docs/sample.md); its load figures are still checked.
steps_ok agent '$s == "sql-ops" or ((.series.sample | length) > 0 and
	(has("server_figures") | not))' "server figures"
# The probe reports whole seconds of its own and is late when the two
# cores are saturated: a step's window may miss it, the run may not.
check "agent: the fairness probe's records are in the result" jqt \
	'[.steps[].repeats[0].series.probe | length] | add > 2' "$ares"
sink=$(jq -r '[.steps[] | select(.name | startswith("smtp-relay"))][0] |
	.repeats[0].relay.sink' "$ares")
case $sink in 10.78.0.11:2525 | 10.78.0.12:2525) ;; *) sink="?$sink" ;; esac
relay_ok "$ares" "$sink"
check_eq "the kit's route names the sink (the agent asked for it)" \
	"$(cat "$PF/benchboot-transport")" "relay.test smtp:[${sink%:*}]:2525"
check_eq "agent: server_identity names Apache's version" "$(jq -r \
	'.server_identity.http.server' "$ares" | cut -d' ' -f1)" \
	"$KT_APACHE_V"
check "agent: server_identity names MariaDB and Postfix" jqt --arg v \
	"$KT_MARIADB_V" \
	'.server_identity | .sql.version == $v and
	(.smtp.banner | test("ESMTP Postfix"))' "$ares"

# --- what is missing is said: Postfix stopped, the kit's check names it.
kt_mail_stop
kt_kit "$D/kit-missing.log" --relay 10.78.0.11:2525 --check-only
check_eq "kit check with Postfix stopped: exit status 1" "$?" 1
check "it names the mail service as missing" grep -q \
	"^kit: MISSING: mail: $SRV:25 did not accept mail" "$D/kit-missing.log"
check "and the rest still answers" grep -q "^kit: ok: sql:" \
	"$D/kit-missing.log"

# --- the other web server and CGI kind: nginx with fcgiwrap and the Perl
# CGI, on :8080, provisioned by the kit alone as well.
N=$D/nginx
if command -v nginx >/dev/null && command -v fcgiwrap >/dev/null; then
	mkdir -p "$N/tmp" "$N/sites"
	netns_spawn srv "$N/fcgiwrap.log" fcgiwrap -s "unix:$N/fcgi.sock"
	wait_for 10 test -S "$N/fcgi.sock" && chmod 666 "$N/fcgi.sock"
	cat >"$N/nginx.conf" <<CONF
# A stock nginx's shape: the main file includes the sites.
worker_processes 1;
daemon off;
pid $N/nginx.pid;
error_log $N/error.log warn;
events { worker_connections 256; }
http {
	client_body_temp_path $N/tmp/body;
	proxy_temp_path $N/tmp/proxy;
	fastcgi_temp_path $N/tmp/fastcgi;
	uwsgi_temp_path $N/tmp/uwsgi;
	scgi_temp_path $N/tmp/scgi;
	include $N/sites/*.conf;
}
CONF
	set -- --web nginx --sql none --mta none --port 8080 --cgi perl \
		--docroot "$N/www" --cgi-dir "$N/cgi-bin" \
		--site "$N/sites/benchboot.conf" --fcgi-socket "$N/fcgi.sock" \
		--host $SRV
	# The kit with these options alone (kt_kit's are Apache's).
	kit() {
		_log=$1
		shift
		netns_exec srv sh "$KIT" "$@" >"$_log" 2>&1
	}
	check "nginx: the kit provisions (--no-enable)" kit \
		"$N/kit-install.log" "$@" --no-enable
	netns_spawn srv "$N/stdout.log" nginx -c "$N/nginx.conf" \
		-e "$N/error.log"
	check "nginx: the kit's own check passes (page, tree, CGIs)" \
		wait_for 20 netns_exec srv sh "$KIT" "$@" --check-only
	netns_exec srv sh "$KIT" "$@" --check-only 2>&1 | sed 's/^/#   /'
	netns_exec c2 $BB ident $SRV --http-port 8080 --sql-port 0 \
		--smtp-port 0 --no-icmp --json >"$RUN_DIR/ident-nginx.json"
	check_eq "nginx: ident's Server header is nginx -v's" "$(jq -r \
		'.http.server' "$RUN_DIR/ident-nginx.json")" \
		"$(nginx -v 2>&1 | sed 's/^nginx version: //')"
	check_eq "nginx: ident names the CGI kind perl" "$(jq -r '.http.cgi' \
		"$RUN_DIR/ident-nginx.json")" perl
else
	skip "no nginx and fcgiwrap here (apt-get install nginx-light fcgiwrap)"
fi
tap_done
