/* mdns/mdns.c: the DNS packet layer of mdns.h: a parser that validates every
 * byte before anything is used, a compressing builder, names and TXT.
 * No sockets here, so the fuzz target links this file alone. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mdns/mdns.h"
#include "lib/util.h"

#define HDR_LEN 12

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static const char *type_str(uint16_t t, char *buf, size_t size)
{
	switch (t) {
	case MDNS_TYPE_A: return "A";
	case MDNS_TYPE_NS: return "NS";
	case MDNS_TYPE_CNAME: return "CNAME";
	case MDNS_TYPE_PTR: return "PTR";
	case MDNS_TYPE_HINFO: return "HINFO";
	case MDNS_TYPE_TXT: return "TXT";
	case MDNS_TYPE_AAAA: return "AAAA";
	case MDNS_TYPE_SRV: return "SRV";
	case MDNS_TYPE_NSEC: return "NSEC";
	case MDNS_TYPE_ANY: return "ANY";
	}
	snprintf(buf, size, "TYPE%u", t);
	return buf;
}

/* Reads the (possibly compressed) name at off into out.  Label bytes must
 * lie below end.  A compression pointer must point into the message body
 * below the start of the label run that contains it; each jump thus
 * lowers that limit, so no loop can exist and at most 127 jumps happen.
 * *next is where the name ends in place (after the first pointer).
 * Returns 0, or -EBADMSG with the reason in why. */
static int name_read(const uint8_t *pkt, size_t end, size_t off,
		     struct mdns_name *out, size_t *next, char *why,
		     size_t whylen)
{
	size_t pos = off, lim = off, n = 0;
	bool jumped = false;

	for (;;) {
		uint8_t c;

		if (pos >= end) {
			snprintf(why, whylen,
				 "name at offset %zu runs past the end (%zu) without its root label",
				 off, end);
			return -EBADMSG;
		}
		c = pkt[pos];
		if ((c & 0xc0) == 0xc0) {
			size_t target;

			if (pos + 2 > end) {
				snprintf(why, whylen,
					 "compression pointer at offset %zu is cut off",
					 pos);
				return -EBADMSG;
			}
			target = (size_t)(get16(pkt + pos) & 0x3fff);
			if (target < HDR_LEN) {
				snprintf(why, whylen,
					 "compression pointer at offset %zu points into the header (%zu)",
					 pos, target);
				return -EBADMSG;
			}
			if (target >= lim) {
				snprintf(why, whylen,
					 "compression pointer at offset %zu points forward or into its own name (%zu >= %zu): possible loop",
					 pos, target, lim);
				return -EBADMSG;
			}
			if (!jumped)
				*next = pos + 2;
			jumped = true;
			pos = lim = target;
			continue;
		}
		if (c & 0xc0) {
			snprintf(why, whylen,
				 "label at offset %zu has the reserved type bits 0x%02x",
				 pos, c & 0xc0);
			return -EBADMSG;
		}
		/* c <= 63 here: the top bits are clear. */
		if (n + 1 + c + (c ? 1 : 0) > MDNS_NAME_MAX) {
			snprintf(why, whylen,
				 "name at offset %zu is longer than %d bytes",
				 off, MDNS_NAME_MAX);
			return -EBADMSG;
		}
		if (pos + 1 + c > end) {
			snprintf(why, whylen,
				 "label at offset %zu claims %u bytes, only %zu left",
				 pos, c, end - pos - 1);
			return -EBADMSG;
		}
		memcpy(out->data + n, pkt + pos, 1 + (size_t)c);
		n += 1 + (size_t)c;
		pos += 1 + (size_t)c;
		if (c == 0)
			break;
	}
	out->len = (uint8_t)n;
	if (!jumped)
		*next = pos;
	return 0;
}

static const char *sec_name(int sec)
{
	static const char *const names[] = { "answer", "authority",
					     "additional" };

	return sec < 0 ? "question" : names[sec];
}

/* Formats "SECTION N of M [NAME TYPE]: why" into err. */
static int bad(char *err, size_t errlen, int sec, unsigned idx,
	       unsigned count, const struct mdns_name *n, uint16_t type,
	       const char *fmt, ...) __attribute__((format(printf, 8, 9)));

static int bad(char *err, size_t errlen, int sec, unsigned idx,
	       unsigned count, const struct mdns_name *n, uint16_t type,
	       const char *fmt, ...)
{
	char name[MDNS_NAME_STR_MAX], tb[16], why[256];
	va_list ap;

	if (!err || !errlen)
		return -EBADMSG;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (n && mdns_name_to_str(n, name, sizeof(name)) >= 0)
		snprintf(err, errlen, "%s %u of %u ('%s' %s): %s",
			 sec_name(sec), idx + 1, count, name,
			 type_str(type, tb, sizeof(tb)), why);
	else
		snprintf(err, errlen, "%s %u of %u: %s", sec_name(sec),
			 idx + 1, count, why);
	return -EBADMSG;
}

/* Checks rdata of rr (at off, rr->rdlen bytes) and decodes the types the
 * header lists. */
static int rdata_check(const uint8_t *pkt, size_t off, struct mdns_rr *rr,
		       char *why, size_t whylen)
{
	size_t end = off + rr->rdlen, next = 0, p;
	int rc;

	switch (rr->type) {
	case MDNS_TYPE_A:
	case MDNS_TYPE_AAAA: {
		size_t want = rr->type == MDNS_TYPE_A ? 4 : 16;

		if (rr->rdlen != want) {
			snprintf(why, whylen,
				 "rdlength %u at offset %zu, want %zu",
				 rr->rdlen, off - 2, want);
			return -EBADMSG;
		}
		memcpy(want == 4 ? rr->u.a : rr->u.aaaa, pkt + off, want);
		return 0;
	}
	case MDNS_TYPE_PTR:
	case MDNS_TYPE_CNAME:
	case MDNS_TYPE_NS:
		rc = name_read(pkt, end, off, &rr->u.ptr, &next, why, whylen);
		if (rc != 0)
			return rc;
		break;
	case MDNS_TYPE_SRV:
		if (rr->rdlen < 7) {
			snprintf(why, whylen,
				 "rdlength %u at offset %zu, an SRV needs at least 7",
				 rr->rdlen, off - 2);
			return -EBADMSG;
		}
		rr->u.srv.priority = get16(pkt + off);
		rr->u.srv.weight = get16(pkt + off + 2);
		rr->u.srv.port = get16(pkt + off + 4);
		rc = name_read(pkt, end, off + 6, &rr->u.srv.target, &next,
			       why, whylen);
		if (rc != 0)
			return rc;
		break;
	case MDNS_TYPE_TXT:
		for (p = off; p < end; p += 1 + (size_t)pkt[p]) {
			if (p + 1 + pkt[p] > end) {
				snprintf(why, whylen,
					 "string at offset %zu claims %u bytes, only %zu left in rdlength %u",
					 p, pkt[p], end - p - 1, rr->rdlen);
				return -EBADMSG;
			}
		}
		return 0;
	case MDNS_TYPE_NSEC:
		rc = name_read(pkt, end, off, &rr->u.nsec.next, &next, why,
			       whylen);
		if (rc != 0)
			return rc;
		for (p = next; p < end; p += 2 + (size_t)pkt[p + 1]) {
			if (p + 2 > end || pkt[p + 1] < 1 || pkt[p + 1] > 32 ||
			    p + 2 + pkt[p + 1] > end) {
				snprintf(why, whylen,
					 "type bitmap block at offset %zu is malformed or runs past rdlength %u",
					 p, rr->rdlen);
				return -EBADMSG;
			}
		}
		return 0;
	default:
		return 0;	/* opaque; bounds already checked */
	}
	if (next != end) {
		snprintf(why, whylen,
			 "rdlength %u at offset %zu but the data ends after %zu bytes",
			 rr->rdlen, off - 2, next - off);
		return -EBADMSG;
	}
	return 0;
}

/* Question i of m->qdcount at *pos; kept while m->q has room. */
static int mdns_parse_question(const uint8_t *pkt, size_t len, size_t *pos,
			       struct mdns_msg *m, unsigned i, char *err,
			       size_t errlen)
{
	struct mdns_question qs;
	struct mdns_question *q = m->nq < MDNS_MAX_QUESTIONS ?
		&m->q[m->nq] : &qs;
	char why[200];
	size_t next = 0;
	int rc;

	if (*pos == len)
		return bad(err, errlen, -1, i, m->qdcount, NULL, 0,
			   "the header claims %u questions but the packet ends after %u",
			   m->qdcount, i);
	rc = name_read(pkt, len, *pos, &q->name, &next, why, sizeof(why));
	if (rc != 0)
		return bad(err, errlen, -1, i, m->qdcount, NULL, 0, "%s", why);
	if (next + 4 > len)
		return bad(err, errlen, -1, i, m->qdcount, &q->name, 0,
			   "truncated at offset %zu: type and class need 4 bytes, %zu left",
			   next, len - next);
	q->type = get16(pkt + next);
	q->qclass = get16(pkt + next + 2) & 0x7fff;
	q->unicast = (get16(pkt + next + 2) & MDNS_CLASS_QU) != 0;
	*pos = next + 4;
	if (q != &qs)
		m->nq++;
	return 0;
}

/* Record i of count in section sec at *pos; kept while m->rr has room,
 * else counted as dropped. */
static int mdns_parse_rr(const uint8_t *pkt, size_t len, size_t *pos,
			 struct mdns_msg *m, int sec, unsigned i,
			 unsigned count, char *err, size_t errlen)
{
	struct mdns_rr scratch;
	struct mdns_rr *rr = m->nrr < MDNS_MAX_RRS ? &m->rr[m->nrr] : &scratch;
	char why[200], tb[16];
	size_t next = 0, p;
	uint16_t cls;
	int rc;

	if (*pos == len)
		return bad(err, errlen, sec, i, count, NULL, 0,
			   "the header claims %u %s records but the packet ends after %u",
			   count, sec_name(sec), i);
	rc = name_read(pkt, len, *pos, &rr->name, &next, why, sizeof(why));
	if (rc != 0)
		return bad(err, errlen, sec, i, count, NULL, 0, "%s", why);
	if (next + 10 > len)
		return bad(err, errlen, sec, i, count, &rr->name, 0,
			   "truncated at offset %zu: type, class, TTL and rdlength need 10 bytes, %zu left",
			   next, len - next);
	rr->type = get16(pkt + next);
	cls = get16(pkt + next + 2);
	rr->rclass = cls & 0x7fff;
	rr->cache_flush = (cls & MDNS_CLASS_FLUSH) != 0;
	rr->ttl = get32(pkt + next + 4);
	rr->rdlen = get16(pkt + next + 8);
	rr->section = (uint8_t)sec;
	p = next + 10;
	if (p + rr->rdlen > len)
		return bad(err, errlen, sec, i, count, &rr->name, rr->type,
			   "rdlength %u at offset %zu runs past the end of the packet (%zu bytes left)",
			   rr->rdlen, p - 2, len - p);
	rr->rdata = pkt + p;
	rc = rdata_check(pkt, p, rr, why, sizeof(why));
	if (rc != 0)
		return bad(err, errlen, sec, i, count, &rr->name, rr->type,
			   "%s %s", type_str(rr->type, tb, sizeof(tb)), why);
	*pos = p + rr->rdlen;
	if (rr != &scratch)
		m->nrr++;
	else
		m->dropped++;
	return 0;
}

int mdns_parse(const uint8_t *pkt, size_t len, struct mdns_msg *m,
	       char *err, size_t errlen)
{
	unsigned counts[3], i;
	size_t pos = HDR_LEN;
	int rc, sec;

	if (err && errlen)
		err[0] = 0;
	m->nq = m->nrr = m->dropped = 0;
	if (len < HDR_LEN)
		return util_fail(err, errlen, -EBADMSG,
				 "header: packet is %zu bytes, shorter than the 12-byte header",
				 len);
	if (len > MDNS_PACKET_MAX)
		return util_fail(err, errlen, -EBADMSG,
				 "packet is %zu bytes, over mDNS's %d-byte limit",
				 len, MDNS_PACKET_MAX);
	m->id = get16(pkt);
	m->flags = get16(pkt + 2);
	m->qdcount = get16(pkt + 4);
	m->ancount = get16(pkt + 6);
	m->nscount = get16(pkt + 8);
	m->arcount = get16(pkt + 10);
	counts[0] = m->ancount;
	counts[1] = m->nscount;
	counts[2] = m->arcount;
	for (i = 0; i < m->qdcount; i++) {
		rc = mdns_parse_question(pkt, len, &pos, m, i, err, errlen);
		if (rc != 0)
			return rc;
	}
	for (sec = 0; sec < 3; sec++) {
		for (i = 0; i < counts[sec]; i++) {
			rc = mdns_parse_rr(pkt, len, &pos, m, sec, i,
					   counts[sec], err, errlen);
			if (rc != 0)
				return rc;
		}
	}
	if (pos != len)
		return util_fail(err, errlen, -EBADMSG,
				 "%zu trailing bytes at offset %zu after the last record (header counts %u/%u/%u/%u)",
				 len - pos, pos, m->qdcount, m->ancount,
				 m->nscount, m->arcount);
	return 0;
}

/* --- names ------------------------------------------------------------ */

static uint8_t lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
}

bool mdns_name_eq(const struct mdns_name *a, const struct mdns_name *b)
{
	size_t i;

	if (a->len != b->len)
		return false;
	for (i = 0; i < a->len; i++)
		if (lower(a->data[i]) != lower(b->data[i]))
			return false;
	return true;
}

bool mdns_name_is_child(const struct mdns_name *n,
			const struct mdns_name *parent)
{
	size_t skip;

	if (n->len < 1 || n->data[0] == 0)
		return false;
	skip = 1 + (size_t)n->data[0];
	if (n->len - skip != parent->len)
		return false;
	for (size_t i = 0; i < parent->len; i++)
		if (lower(n->data[skip + i]) != lower(parent->data[i]))
			return false;
	return true;
}

/* Appends dotted text s (escapes as mdns_name_from_str()) at n->len,
 * which holds no root byte yet; adds the root. */
static int name_append_str(struct mdns_name *n, const char *s)
{
	size_t len = n->len;

	while (*s) {
		size_t lab = len, l = 0;

		if (len + 1 > MDNS_NAME_MAX - 1)
			return -EINVAL;
		len++;
		while (*s && *s != '.') {
			int c = (unsigned char)*s++;

			if (c == '\\') {
				if (s[0] >= '0' && s[0] <= '9') {
					if (!(s[1] >= '0' && s[1] <= '9' &&
					      s[2] >= '0' && s[2] <= '9'))
						return -EINVAL;
					c = (s[0] - '0') * 100 +
					    (s[1] - '0') * 10 + (s[2] - '0');
					if (c > 255)
						return -EINVAL;
					s += 3;
				} else if (*s) {
					c = (unsigned char)*s++;
				} else {
					return -EINVAL;
				}
			}
			if (++l > MDNS_LABEL_MAX || len + 1 > MDNS_NAME_MAX)
				return -EINVAL;
			n->data[len++] = (uint8_t)c;
		}
		if (l == 0)
			return -EINVAL;	/* empty label: "a..b" or ".a" */
		n->data[lab] = (uint8_t)l;
		if (*s == '.' && *++s == 0)
			break;		/* trailing dot */
	}
	if (len + 1 > MDNS_NAME_MAX)
		return -EINVAL;
	n->data[len++] = 0;
	n->len = (uint8_t)len;
	return 0;
}

int mdns_name_from_str(struct mdns_name *n, const char *s)
{
	n->len = 0;
	if (!s)
		return -EINVAL;
	return name_append_str(n, s);
}

int mdns_name_from_label(struct mdns_name *n, const char *label,
			 const char *rest)
{
	size_t l = label ? strlen(label) : 0;

	if (l < 1 || l > MDNS_LABEL_MAX || !rest)
		return -EINVAL;
	n->data[0] = (uint8_t)l;
	memcpy(n->data + 1, label, l);
	n->len = (uint8_t)(1 + l);
	return name_append_str(n, rest);
}

int mdns_name_to_str(const struct mdns_name *n, char *buf, size_t size)
{
	size_t i = 0, o = 0;

	if (size < 1)
		return -ENOSPC;
	while (i < n->len && n->data[i]) {
		size_t l = n->data[i++];

		if (o && o + 1 < size)
			buf[o++] = '.';
		for (; l > 0 && i < n->len; l--, i++) {
			uint8_t c = n->data[i];
			char e[5];
			int el;

			if (c == '.' || c == '\\')
				el = snprintf(e, sizeof(e), "\\%c", c);
			else if (c < 0x21 && c != ' ')
				el = snprintf(e, sizeof(e), "\\%03u", c);
			else if (c == 0x7f)
				el = snprintf(e, sizeof(e), "\\%03u", c);
			else
				e[0] = (char)c, el = 1;
			if (o + (size_t)el >= size)
				return -ENOSPC;
			memcpy(buf + o, e, (size_t)el);
			o += (size_t)el;
		}
	}
	if (o >= size)
		return -ENOSPC;
	buf[o] = 0;
	return (int)o;
}

int mdns_name_label(const struct mdns_name *n, char *buf, size_t size)
{
	size_t l = n->len ? n->data[0] : 0;

	if (l + 1 > size)
		return -ENOSPC;
	memcpy(buf, n->data + 1, l);
	buf[l] = 0;
	return (int)l;
}

/* --- TXT --------------------------------------------------------------- */

int mdns_txt_encode(const char *const *kv, uint8_t *buf, size_t size)
{
	size_t o = 0;

	for (; kv && *kv; kv++) {
		size_t l = strlen(*kv);

		if (l > 255 || l == 0 || (*kv)[0] == '=')
			return -EINVAL;
		if (o + 1 + l > size)
			return -ENOSPC;
		buf[o++] = (uint8_t)l;
		memcpy(buf + o, *kv, l);
		o += l;
	}
	if (o == 0) {
		if (size < 1)
			return -ENOSPC;
		buf[o++] = 0;
	}
	return (int)o;
}

int mdns_txt_get(const uint8_t *rdata, size_t len, const char *key,
		 const char **val)
{
	size_t kl = strlen(key), p = 0;

	while (p < len) {
		size_t l = rdata[p], i;
		const uint8_t *s = rdata + p + 1;

		if (p + 1 + l > len)
			break;
		p += 1 + l;
		if (l < kl || (l > kl && s[kl] != '='))
			continue;
		for (i = 0; i < kl; i++)
			if (lower(s[i]) != lower((uint8_t)key[i]))
				break;
		if (i < kl)
			continue;
		if (l == kl) {
			*val = NULL;
			return 0;
		}
		*val = (const char *)s + kl + 1;
		return (int)(l - kl - 1);
	}
	return -ENOENT;
}

/* --- builder ----------------------------------------------------------- */

void mdns_build_init(struct mdns_builder *b, uint8_t *buf, size_t cap,
		     uint16_t id, uint16_t flags)
{
	b->buf = buf;
	b->cap = cap;
	b->len = HDR_LEN;
	memset(b->count, 0, sizeof(b->count));
	b->section = -1;
	b->nnames = 0;
	memset(buf, 0, HDR_LEN);
	put16(buf, id);
	put16(buf + 2, flags);
}

/* True when the uncompressed suffix s (slen bytes) equals the name the
 * builder wrote at off (which may itself be compressed). */
static bool suffix_at(const struct mdns_builder *b, size_t off,
		      const uint8_t *s, size_t slen)
{
	struct mdns_name n;
	size_t next;
	char why[8];

	if (name_read(b->buf, b->len, off, &n, &next, why, sizeof(why)) != 0)
		return false;
	if (n.len != slen)
		return false;
	for (size_t i = 0; i < slen; i++)
		if (lower(n.data[i]) != lower(s[i]))
			return false;
	return true;
}

/* Writes n compressed; returns 0 or -ENOSPC (b->len unchanged). */
static int name_write(struct mdns_builder *b, const struct mdns_name *n)
{
	size_t i = 0, o = b->len, nn = b->nnames;

	while (i < n->len && n->data[i]) {
		size_t k;

		for (k = 0; k < b->nnames; k++) {
			if (suffix_at(b, b->names[k], n->data + i,
				      n->len - i)) {
				if (o + 2 > b->cap)
					goto nospc;
				put16(b->buf + o, (uint16_t)(0xc000 |
							     b->names[k]));
				b->len = o + 2;
				b->nnames = nn;
				return 0;
			}
		}
		if (o + 1 + n->data[i] > b->cap)
			goto nospc;
		if (o < 0x3fff && nn < sizeof(b->names) /
				       sizeof(b->names[0]))
			b->names[nn++] = (uint16_t)o;
		memcpy(b->buf + o, n->data + i, 1 + (size_t)n->data[i]);
		o += 1 + (size_t)n->data[i];
		i += 1 + (size_t)n->data[i];
		/* Later suffix searches may see the labels just written:
		 * publish them only once the whole name is in place. */
	}
	if (o + 1 > b->cap)
		goto nospc;
	b->buf[o++] = 0;
	b->len = o;
	b->nnames = nn;
	return 0;
nospc:
	return -ENOSPC;
}

int mdns_build_question(struct mdns_builder *b, const struct mdns_name *n,
			uint16_t type, uint16_t qclass)
{
	size_t save = b->len, nn = b->nnames;
	int rc;

	if (b->section != -1 || n->len < 1)
		return -EINVAL;
	rc = name_write(b, n);
	if (rc != 0)
		return rc;
	if (b->len + 4 > b->cap) {
		b->len = save;
		b->nnames = nn;
		return -ENOSPC;
	}
	put16(b->buf + b->len, type);
	put16(b->buf + b->len + 2, qclass);
	b->len += 4;
	b->count[0]++;
	return 0;
}

int mdns_build_rr(struct mdns_builder *b, enum mdns_section sec,
		  const struct mdns_rr *rr)
{
	size_t save = b->len, nn = b->nnames, rdoff;
	int rc;

	if ((int)sec < b->section || sec > MDNS_SEC_ADDITIONAL ||
	    rr->name.len < 1)
		return -EINVAL;
	b->section = (int)sec;
	rc = name_write(b, &rr->name);
	if (rc != 0)
		goto err;
	rc = -ENOSPC;
	if (b->len + 10 > b->cap)
		goto err;
	put16(b->buf + b->len, rr->type);
	put16(b->buf + b->len + 2, (uint16_t)(rr->rclass |
		(rr->cache_flush ? MDNS_CLASS_FLUSH : 0)));
	put32(b->buf + b->len + 4, rr->ttl);
	b->len += 10;
	rdoff = b->len;
	switch (rr->type) {
	case MDNS_TYPE_A:
	case MDNS_TYPE_AAAA: {
		size_t l = rr->type == MDNS_TYPE_A ? 4 : 16;

		if (b->len + l > b->cap)
			goto err;
		memcpy(b->buf + b->len, l == 4 ? rr->u.a : rr->u.aaaa, l);
		b->len += l;
		break;
	}
	case MDNS_TYPE_PTR:
	case MDNS_TYPE_CNAME:
	case MDNS_TYPE_NS:
		rc = name_write(b, &rr->u.ptr);
		if (rc != 0)
			goto err;
		break;
	case MDNS_TYPE_SRV:
		if (b->len + 6 > b->cap)
			goto err;
		put16(b->buf + b->len, rr->u.srv.priority);
		put16(b->buf + b->len + 2, rr->u.srv.weight);
		put16(b->buf + b->len + 4, rr->u.srv.port);
		b->len += 6;
		rc = name_write(b, &rr->u.srv.target);
		if (rc != 0)
			goto err;
		break;
	case MDNS_TYPE_NSEC:
		/* The next name is written uncompressed (RFC 6762 §18.14
		 * allows either; some parsers expect this). */
		if (b->len + rr->u.nsec.next.len + rr->rdlen > b->cap)
			goto err;
		memcpy(b->buf + b->len, rr->u.nsec.next.data,
		       rr->u.nsec.next.len);
		b->len += rr->u.nsec.next.len;
		if (rr->rdlen)
			memcpy(b->buf + b->len, rr->rdata, rr->rdlen);
		b->len += rr->rdlen;	/* rdata = the bitmap only */
		break;
	default:
		if (b->len + rr->rdlen > b->cap)
			goto err;
		if (rr->rdlen)
			memcpy(b->buf + b->len, rr->rdata, rr->rdlen);
		b->len += rr->rdlen;
		break;
	}
	put16(b->buf + rdoff - 2, (uint16_t)(b->len - rdoff));
	b->count[1 + sec]++;
	return 0;
err:
	b->len = save;
	b->nnames = nn;
	return rc;
}

size_t mdns_build_finish(struct mdns_builder *b)
{
	put16(b->buf + 4, b->count[0]);
	put16(b->buf + 6, b->count[1]);
	put16(b->buf + 8, b->count[2]);
	put16(b->buf + 10, b->count[3]);
	return b->len;
}
