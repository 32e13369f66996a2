# params.sh: the benchboot.* kernel parameter parser, sourced by /init and
# by qemu-tests/000_init_params (which runs it on the build host with the
# same BusyBox shell), so every rule here is tested without booting.

# Every parameter /init knows; anything else named benchboot.* is an error.
BB_PARAMS_KNOWN="role controller suite upload id poweroff debug relay peers key lab token pin target field time_scale run_id set if"

# bb_params_tokens CMDLINE: print CMDLINE's words one a line, the way the
# kernel splits it (double quotes group a value and are dropped; words after
# a lone "--" belong to init's argv and are skipped).
bb_params_tokens() {
	printf '%s\n' "$1" | awk '{
		n = length($0); w = ""; q = 0; have = 0
		for (i = 1; i <= n; i++) {
			c = substr($0, i, 1)
			if (c == "\"") { q = !q; have = 1; continue }
			if (!q && (c == " " || c == "\t")) {
				if (have) { if (w == "--") exit; print w }
				w = ""; have = 0; continue
			}
			w = w c; have = 1
		}
		if (have && w != "--") print w
	}'
}

# bb_params_err PARAM MESSAGE...: one error line naming the parameter.
bb_params_err() {
	local p=$1
	shift
	echo "benchboot: kernel parameter '$p': $*"
	BB_PARAM_ERRORS=$((BB_PARAM_ERRORS + 1))
}

# bb_params_sets LIST: true when LIST is NAME=VALUE[,NAME=VALUE...] with
# suite variable names (suite-format.md) and plain values.
bb_params_sets() {
	local IFS=, one
	case $1 in '' | ,* | *, | *,,*) return 1 ;; esac
	for one in $1; do
		case $one in
		[A-Za-z_]*=?*) ;;
		*) return 1 ;;
		esac
		case ${one%%=*} in *[!A-Za-z0-9_-]*) return 1 ;; esac
		case ${one#*=} in *[!A-Za-z0-9._:/@-]*) return 1 ;; esac
	done
}

# bb_params_hostname NAME: true when NAME is a valid host name label
# (letters, digits, '-', not at either end, at most 63 characters).
bb_params_hostname() {
	case $1 in
	'' | -* | *- | *[!A-Za-z0-9-]*) return 1 ;;
	esac
	[ ${#1} -le 63 ]
}

# bb_params_url VALUE SCHEMES: true when VALUE is SCHEME://REST for one of
# the space-separated SCHEMES and REST is non-empty.
bb_params_url() {
	local s
	for s in $2; do
		case $1 in
		"$s"://?*) return 0 ;;
		esac
	done
	return 1
}

# bb_params_if VALUE: true for an interface name (as the kernel allows
# one here: 1-15 characters, not '.' or '..') or a MAC, six pairs of hex
# digits separated by ':'.
bb_params_if() {
	case $1 in
	[0-9A-Fa-f][0-9A-Fa-f]:[0-9A-Fa-f][0-9A-Fa-f]:[0-9A-Fa-f][0-9A-Fa-f]:\
[0-9A-Fa-f][0-9A-Fa-f]:[0-9A-Fa-f][0-9A-Fa-f]:[0-9A-Fa-f][0-9A-Fa-f])
		return 0 ;;
	*:*) return 1 ;;
	'' | . | .. | *[!A-Za-z0-9._-]*) return 1 ;;
	esac
	[ ${#1} -le 15 ]
}

# bb_params_port VALUE: true for a decimal port 1..65535.
bb_params_port() {
	case $1 in
	'' | *[!0-9]* | 0*) return 1 ;;
	esac
	[ ${#1} -le 5 ] && [ "$1" -le 65535 ]
}

# bb_params_controller VALUE: HOST, HOST:PORT or [IPV6]:PORT / [IPV6].
bb_params_controller() {
	local h p
	case $1 in
	\[*\]) h=${1#\[}; h=${h%\]}; p= ;;
	\[*\]:*) h=${1#\[}; h=${h%%\]*}; p=${1##*\]:}
		bb_params_port "$p" || return 1 ;;
	*:*:*) return 1 ;;
	*:*) h=${1%:*}; p=${1##*:}
		bb_params_port "$p" || return 1 ;;
	*) h=$1 ;;
	esac
	case $1 in
	\[*) case $h in '' | *[!0-9A-Fa-f:.]*) return 1 ;; esac ;;
	*) case $h in '' | .* | *..* | *[!A-Za-z0-9.-]*) return 1 ;; esac ;;
	esac
	return 0
}

# bb_params_parse CMDLINE: set BB_ROLE, BB_ID, BB_CONTROLLER, BB_SUITE,
# BB_UPLOAD, BB_POWEROFF, BB_DEBUG, BB_IF, ... from CMDLINE (defaults:
# role client, everything else empty or 0; BB_ID empty means "derive from
# the MAC", BB_IF empty "every link").
# Prints one line per bad parameter on stdout, counts them in
# BB_PARAM_ERRORS and fails when there was any.  A repeated parameter's
# last value wins, as in the kernel; other parameters are ignored.
bb_params_parse() {
	local tok key val ok
	BB_ROLE=client BB_ID= BB_CONTROLLER= BB_SUITE= BB_UPLOAD= BB_RELAY= BB_PEERS=
	BB_KEY= BB_LAB= BB_TOKEN= BB_PIN= BB_TARGET= BB_TIME_SCALE= BB_RUN_ID=
	BB_SET= BB_IF=
	BB_POWEROFF=0 BB_DEBUG=0 BB_FIELD=0 BB_PARAM_ERRORS=0
	# A here-document, not a pipe: the loop must run in this shell.
	while IFS= read -r tok; do
		case $tok in
		benchboot.*) ;;
		*) continue ;;
		esac
		key=${tok%%=*}
		key=${key#benchboot.}
		if [ "$tok" = "${tok#*=}" ]; then
			bb_params_err "$tok" "needs a value (benchboot.$key=...)"
			continue
		fi
		val=${tok#*=}
		case $val in
		*[[:space:]\'\"\\\`\$]*)
			bb_params_err "$tok" "value must not contain spaces," \
"quotes, '\\', '\`' or '\$' (percent-encode them in a URL)"
			continue ;;
		esac
		case $key in
		role)
			case $val in
			client | server | controller) BB_ROLE=$val ;;
			*) bb_params_err "$tok" \
				"role must be client, server or controller" ;;
			esac ;;
		id)
			if bb_params_hostname "$val"; then
				BB_ID=$val
			else
				bb_params_err "$tok" "id must be 1-63 letters," \
"digits or '-' (not first or last), as it becomes the host name"
			fi ;;
		controller)
			if bb_params_controller "$val"; then
				BB_CONTROLLER=$val
			else
				bb_params_err "$tok" "controller must be HOST," \
"HOST:PORT or [IPV6]:PORT with PORT 1-65535"
			fi ;;
		suite)
			case $val in
			*://*)
				if bb_params_url "$val" "http https file"; then
					BB_SUITE=$val
				else
					bb_params_err "$tok" "suite URL must be" \
"http://, https:// or file://"
				fi ;;
			/*)
				case $val in
				*[!A-Za-z0-9._/-]* | */../* | */..)
					bb_params_err "$tok" "suite PATH must be" \
"absolute, of letters, digits, '.', '_', '-', '/', without '..'" ;;
				*) BB_SUITE=$val ;;
				esac ;;
			*[!A-Za-z0-9._-]* | .*)
				bb_params_err "$tok" "suite must be a NAME" \
"(letters, digits, '.', '_', '-'), an absolute PATH or a URL" ;;
			*) BB_SUITE=$val ;;
			esac ;;
		upload)
			if bb_params_url "$val" "http https file"; then
				BB_UPLOAD=$val
			else
				bb_params_err "$tok" "upload must be an" \
"http://, https:// or file:// URL"
			fi ;;
		time_scale)
			# The controller: every time of the suite times F
			# (--time-scale; the agent checks the range).
			case $val in
			*[!0-9./%]* | '' | *.*.* | */*/* | *%*%*)
				bb_params_err "$tok" "time_scale must be a" \
"factor such as 0.1, 1/10 or 10%" ;;
			*) BB_TIME_SCALE=$val ;;
			esac ;;
		set)
			# The controller: suite variables (--set NAME=VALUE
			# each), e.g. an emulated run's longer timeouts.
			if bb_params_sets "$val"; then
				BB_SET=$val
			else
				bb_params_err "$tok" "set must be" \
"NAME=VALUE[,NAME=VALUE...]: NAME of letters, digits, '_', '-' (not first)," \
"VALUE of letters, digits, '.', '_', ':', '/', '@', '-'"
			fi ;;
		peers)
			# The controller: clients to wait for (--peers).
			case $val in
			[0-9] | [1-9][0-9] | [1-9][0-9][0-9]) BB_PEERS=$val ;;
			*) bb_params_err "$tok" "peers must be a number" \
"0-999" ;;
			esac ;;
		relay)
			# The server's relay.test sink (server-relay HOST:PORT).
			if bb_params_controller "$val" &&
				[ "${val##*:}" != "$val" ]; then
				BB_RELAY=$val
			else
				bb_params_err "$tok" "relay must be HOST:PORT" \
"with PORT 1-65535"
			fi ;;
		key)
			# The lab key (docs/security.md): as the agent takes
			# it, 16-256 characters.
			if [ ${#val} -ge 16 ] && [ ${#val} -le 256 ]; then
				BB_KEY=$val
			else
				bb_params_err "$tok" "key must be 16-256" \
"characters"
			fi ;;
		run_id)
			# A file name in the spool and at the collector.
			case $val in
			'' | .* | *[!A-Za-z0-9._-]*) ok=0 ;;
			*) ok=1; [ ${#val} -le 200 ] || ok=0 ;;
			esac
			if [ $ok = 1 ]; then
				BB_RUN_ID=$val
			else
				bb_params_err "$tok" "run_id must be 1-200 letters," \
"digits, '.', '_' or '-', not starting with '.'"
			fi ;;
		lab)
			case $val in
			'' | *[!A-Za-z0-9._-]*) ok=0 ;;
			*) ok=1; [ ${#val} -le 63 ] || ok=0 ;;
			esac
			if [ $ok = 1 ]; then
				BB_LAB=$val
			else
				bb_params_err "$tok" "lab must be 1-63 letters," \
"digits, '.', '_' or '-'"
			fi ;;
		target)
			# Any host as the server under test (--target): a
			# host name or address, no port.
			if bb_params_controller "$val" &&
				[ "${val%:*}" = "$val" ] || case $val in
				\[*\]) true ;; *) false ;; esac; then
				BB_TARGET=$val
			else
				bb_params_err "$tok" "target must be a host" \
"name or an address (no port)"
			fi ;;
		token)
			# The collector's upload token.
			if [ ${#val} -le 255 ]; then
				BB_TOKEN=$val
			else
				bb_params_err "$tok" "token must be at most" \
"255 characters"
			fi ;;
		pin)
			# The https collector's public key (spool.h).
			case $val in
			sha256//?*) BB_PIN=$val ;;
			*) bb_params_err "$tok" "pin must be" \
"sha256//BASE64 (the collector's public key)" ;;
			esac ;;
		if)
			# The one NIC to use (links.sh): its name or its MAC.
			# A MAC is kept in lower case, as sysfs writes it.
			if bb_params_if "$val"; then
				case $val in
				*:*) BB_IF=$(echo "$val" | tr A-F a-f) ;;
				*) BB_IF=$val ;;
				esac
			else
				bb_params_err "$tok" "if must be an interface" \
"NAME (1-15 letters, digits, '.', '_', '-') or a MAC (aa:bb:cc:dd:ee:ff)"
			fi ;;
		poweroff | debug | field)
			# field: the stick's field test (stick.sh).
			case $val in
			0 | 1) eval "BB_$(echo "$key" | tr a-z A-Z)=$val" ;;
			*) bb_params_err "$tok" "$key must be 0 or 1" ;;
			esac ;;
		*)
			bb_params_err "$tok" "unknown parameter" \
"(known: $(echo $BB_PARAMS_KNOWN | sed 's/[a-z_]*/benchboot.&/g'))" ;;
		esac
	done <<EOT
$(bb_params_tokens "$1")
EOT
	[ $BB_PARAM_ERRORS = 0 ]
}
