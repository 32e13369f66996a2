# fuzz.mk: libFuzzer targets: FUZZ_TARGETS += NAME, fuzz_NAME_SRCS := modules.
FUZZ_TARGETS += http_parse
fuzz_http_parse_SRCS := http_parse.c
FUZZ_TARGETS += smtp_reply
fuzz_smtp_reply_SRCS := smtp_proto.c
FUZZ_TARGETS += mdns_parse
fuzz_mdns_parse_SRCS := mdns.c
