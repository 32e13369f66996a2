# fuzz.mk: libFuzzer targets: FUZZ_TARGETS += NAME, fuzz_NAME_SRCS := the
# modules it needs, as paths under payload/src.
FUZZ_TARGETS += http_parse
fuzz_http_parse_SRCS := load/http/http_parse.c
FUZZ_TARGETS += smtp_reply
fuzz_smtp_reply_SRCS := load/smtp/smtp_proto.c
FUZZ_TARGETS += mdns_parse
fuzz_mdns_parse_SRCS := mdns/mdns.c lib/util.c
FUZZ_TARGETS += control_msg
fuzz_control_msg_SRCS := proto/control.c lib/hostport.c lib/json_int.c \
	lib/util.c
$(PAYLOAD_BUILD)/fuzz/fuzz_control_msg: FUZZ_CFLAGS += -lcjson
FUZZ_TARGETS += collect_http
fuzz_collect_http_SRCS := collector/collect_http.c lib/util.c
$(PAYLOAD_BUILD)/fuzz/fuzz_collect_http: FUZZ_CFLAGS += -lcjson -lmbedcrypto -lm
FUZZ_TARGETS += proc_parse
fuzz_proc_parse_SRCS := sysmon/sample_linux.c lib/util.c
FUZZ_TARGETS += report
fuzz_report_SRCS := result/result_doc.c report/report_text.c \
	report/report_csv.c report/report_html.c report/report_system.c \
	report/report_mdc.c result/result.c \
	lib/hist.c lib/json_int.c lib/repeat_stats.c lib/tdist.c lib/util.c
$(PAYLOAD_BUILD)/fuzz/fuzz_report: FUZZ_CFLAGS += -lcjson -lm
FUZZ_TARGETS += mysql_wire
fuzz_mysql_wire_SRCS := load/sql/mysql_wire.c
FUZZ_TARGETS += suite
fuzz_suite_SRCS := controller/suite.c lib/util.c
FUZZ_TARGETS += auth
fuzz_auth_SRCS := proto/auth.c proto/control.c lib/json_int.c \
	lib/hostport.c lib/util.c
$(PAYLOAD_BUILD)/fuzz/fuzz_auth: FUZZ_CFLAGS += -lcjson -lmbedcrypto
FUZZ_TARGETS += ident
fuzz_ident_SRCS := ident/ident_parse.c lib/util.c
FUZZ_TARGETS += webui_query
fuzz_webui_query_SRCS := collector/webui_query.c lib/util.c
# The result index, with no server (resultdb_new_exec()): mysql.h for its
# types from the sysroot (built with the payload's connector), the host's
# connector (libmariadb3, which the tests' mariadb-client brings) for the
# symbols resultdb_conn.c names; none of them is called.
FUZZ_TARGETS += resultdb
fuzz_resultdb_SRCS := resultdb/resultdb_index.c resultdb/resultdb_regress.c \
	resultdb/resultdb_conn.c dbconn/dbconn.c \
	result/result_doc.c result/result.c lib/hist.c lib/json_int.c \
	lib/repeat_stats.c lib/tdist.c lib/hostport.c lib/util.c
$(PAYLOAD_BUILD)/fuzz/fuzz_resultdb: FUZZ_CFLAGS += \
	-I$(SYSROOT)/include/mariadb -lcjson -l:libmariadb.so.3 -lm
$(PAYLOAD_BUILD)/fuzz/fuzz_resultdb: | $(MARIADB_LIB)
# An agent's run handling up to the fork (fuzz_session.c includes
# agent/session.c and stands in for the modules below it).
FUZZ_TARGETS += session
fuzz_session_SRCS := proto/control.c proto/auth.c proto/gate.c agent/policy.c \
	lib/opt.c lib/json_int.c lib/hostport.c lib/util.c lib/wake.c
$(PAYLOAD_BUILD)/fuzz/fuzz_session: FUZZ_CFLAGS += -lcjson -lmbedcrypto
# fuzz_session.c includes agent/session.c (its statics): an empty object
# rebuilt whenever session.c changes, so that the fuzzer is too.
$(PAYLOAD_BUILD)/fuzz/fuzz_session: $(PAYLOAD_BUILD)/fuzz/session_c.o
$(PAYLOAD_BUILD)/fuzz/session_c.o: payload/src/agent/session.c
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -c -x c /dev/null -o $@
FUZZ_TARGETS += smbios
fuzz_smbios_SRCS := host/host_smbios.c host/host_sysfs.c lib/util.c
$(PAYLOAD_BUILD)/fuzz/fuzz_smbios: FUZZ_CFLAGS += -lcjson
# The change points' reader (changes_history.c) over any document, and
# the detector over any series; the index's modules linked as for
# fuzz_resultdb (no server is reached: a history from files).
FUZZ_TARGETS += changes
fuzz_changes_SRCS := changes/changes_history.c changes/changes_edivisive.c \
	resultdb/resultdb_changes.c resultdb/resultdb_regress.c \
	resultdb/resultdb_conn.c dbconn/dbconn.c \
	result/result_doc.c result/result.c lib/hist.c lib/json_int.c \
	lib/repeat_stats.c lib/tdist.c lib/hostport.c lib/util.c
$(PAYLOAD_BUILD)/fuzz/fuzz_changes: FUZZ_CFLAGS += \
	-I$(SYSROOT)/include/mariadb -lcjson -l:libmariadb.so.3 -lm
$(PAYLOAD_BUILD)/fuzz/fuzz_changes: | $(MARIADB_LIB)
# suite_nic over an agent's host object (untrusted JSON) and the sysfs
# text parsers of host_nic.
FUZZ_TARGETS += nic
fuzz_nic_SRCS := host/host_nic.c
$(PAYLOAD_BUILD)/fuzz/fuzz_nic: FUZZ_CFLAGS += -lcjson
