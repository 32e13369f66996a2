/* fuzz_mdns_parse.c: libFuzzer target for mdns_parse().  Whatever it
 * accepts must obey the limits it promises, print as a name, and survive
 * a rebuild with the builder and a second parse unchanged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mdns/mdns.h"

static uint8_t out[MDNS_PACKET_MAX * 2];
static struct mdns_msg m, m2;

static void check_name(const struct mdns_name *n)
{
	char s[MDNS_NAME_STR_MAX];
	size_t i = 0;

	if (n->len < 1 || n->len > MDNS_NAME_MAX)
		abort();
	while (n->data[i]) {
		if (n->data[i] > MDNS_LABEL_MAX)
			abort();
		i += 1 + (size_t)n->data[i];
		if (i >= n->len)
			abort();
	}
	if (i + 1 != n->len)
		abort();
	if (mdns_name_to_str(n, s, sizeof(s)) < 0)
		abort();
}

/* Types whose decoded form the builder writes back exactly. */
static int simple(uint16_t t)
{
	return t == MDNS_TYPE_A || t == MDNS_TYPE_AAAA ||
	       t == MDNS_TYPE_PTR || t == MDNS_TYPE_SRV || t == MDNS_TYPE_TXT;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t len)
{
	struct mdns_builder b;
	char err[512];
	size_t i, j, olen;
	const char *val;

	if (mdns_parse(d, len, &m, err, sizeof(err)) != 0) {
		if (!err[0] || strlen(err) >= sizeof(err))
			abort();
		return 0;
	}
	if (m.nq > MDNS_MAX_QUESTIONS || m.nrr > MDNS_MAX_RRS)
		abort();
	for (i = 0; i < m.nq; i++)
		check_name(&m.q[i].name);
	for (i = 0; i < m.nrr; i++) {
		const struct mdns_rr *rr = &m.rr[i];

		check_name(&rr->name);
		if (rr->rdata < d || rr->rdata + rr->rdlen > d + len)
			abort();
		if (rr->type == MDNS_TYPE_PTR)
			check_name(&rr->u.ptr);
		if (rr->type == MDNS_TYPE_SRV)
			check_name(&rr->u.srv.target);
		if (rr->type == MDNS_TYPE_TXT)
			mdns_txt_get(rr->rdata, rr->rdlen, "role", &val);
	}

	/* Rebuild what we can and parse it again. */
	mdns_build_init(&b, out, sizeof(out), m.id, m.flags);
	for (i = 0; i < m.nq; i++)
		if (mdns_build_question(&b, &m.q[i].name, m.q[i].type,
					m.q[i].qclass |
					(m.q[i].unicast ? MDNS_CLASS_QU : 0)))
			abort();
	for (i = 0; i < m.nrr; i++)
		if (simple(m.rr[i].type) &&
		    mdns_build_rr(&b, m.rr[i].section, &m.rr[i]) != 0)
			abort();
	olen = mdns_build_finish(&b);
	if (mdns_parse(out, olen, &m2, err, sizeof(err)) != 0)
		abort();
	if (m2.nq != m.nq)
		abort();
	for (i = 0; i < m.nq; i++)
		if (!mdns_name_eq(&m.q[i].name, &m2.q[i].name) ||
		    m.q[i].type != m2.q[i].type)
			abort();
	for (i = 0, j = 0; i < m.nrr; i++) {
		const struct mdns_rr *a = &m.rr[i], *c;

		if (!simple(a->type))
			continue;
		if (j >= m2.nrr)
			abort();
		c = &m2.rr[j++];
		if (!mdns_name_eq(&a->name, &c->name) || a->type != c->type ||
		    a->ttl != c->ttl || a->section != c->section)
			abort();
		/* Names in PTR/SRV rdata may compress differently. */
		if (a->type != MDNS_TYPE_PTR && a->type != MDNS_TYPE_SRV &&
		    a->rdlen != c->rdlen)
			abort();
		if (a->type == MDNS_TYPE_SRV &&
		    (a->u.srv.port != c->u.srv.port ||
		     !mdns_name_eq(&a->u.srv.target, &c->u.srv.target)))
			abort();
		if (a->type == MDNS_TYPE_PTR &&
		    !mdns_name_eq(&a->u.ptr, &c->u.ptr))
			abort();
		if ((a->type == MDNS_TYPE_TXT || a->type == MDNS_TYPE_A) &&
		    memcmp(a->rdata, c->rdata, a->rdlen) != 0)
			abort();
	}
	return 0;
}
