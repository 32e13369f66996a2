# fuzz.mk: libFuzzer targets: FUZZ_TARGETS += NAME, fuzz_NAME_SRCS := modules.
FUZZ_TARGETS += http_parse
fuzz_http_parse_SRCS := http_parse.c
FUZZ_TARGETS += smtp_reply
fuzz_smtp_reply_SRCS := smtp_proto.c
FUZZ_TARGETS += mdns_parse
fuzz_mdns_parse_SRCS := mdns.c
FUZZ_TARGETS += ctl_msg
fuzz_ctl_msg_SRCS := ctl.c
$(PAYLOAD_BUILD)/fuzz/fuzz_ctl_msg: FUZZ_CFLAGS += -lcjson
FUZZ_TARGETS += collect_http
fuzz_collect_http_SRCS := collect.c ctl.c util.c
$(PAYLOAD_BUILD)/fuzz/fuzz_collect_http: FUZZ_CFLAGS += -lcjson -lm
FUZZ_TARGETS += proc_parse
fuzz_proc_parse_SRCS := sample_linux.c
FUZZ_TARGETS += report
fuzz_report_SRCS := report.c report_html.c hist.c rstats.c
$(PAYLOAD_BUILD)/fuzz/fuzz_report: FUZZ_CFLAGS += -lcjson -lm
