/* report/report_system.c: the hosts' system table, built from the
 * result documents and ordered for comparison (report_system.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_system.h"

#define RS_CELL 4096

static const cJSON *rs_get(const cJSON *o, const char *path)
{
	char p[128], *k, *save = NULL;

	snprintf(p, sizeof(p), "%s", path);
	for (k = strtok_r(p, ".", &save); k && o;
	     k = strtok_r(NULL, ".", &save))
		o = cJSON_GetObjectItemCaseSensitive(o, k);
	return o;
}

static const char *rs_str(const cJSON *o, const char *path)
{
	return cJSON_GetStringValue(rs_get(o, path));
}

/* Appends to b (RS_CELL bytes) with sep before it unless b is empty. */
static void __attribute__((format(printf, 3, 4)))
rs_cat(char *b, const char *sep, const char *fmt, ...)
{
	size_t l = strlen(b);
	va_list ap;

	if (l && sep)
		l += (size_t)snprintf(b + l, RS_CELL - l, "%s", sep);
	if (l >= RS_CELL)
		return;
	va_start(ap, fmt);
	vsnprintf(b + l, RS_CELL - l, fmt, ap);
	va_end(ap);
}

/* The strings at paths (NULL-ended) of h joined by spaces. */
static void rs_join(char *b, const cJSON *h, const char *const *paths)
{
	const char *s;

	for (; *paths; paths++)
		if ((s = rs_str(h, *paths)) != NULL && *s)
			rs_cat(b, " ", "%s", s);
}

static void rs_num(char *b, const char *sep, const cJSON *h,
		   const char *path, const char *fmt)
{
	const cJSON *x = rs_get(h, path);

	if (cJSON_IsNumber(x))
		rs_cat(b, sep, fmt, x->valuedouble);
}

static void rs_bool(char *b, const cJSON *h, const char *path)
{
	const cJSON *x = rs_get(h, path);

	if (cJSON_IsBool(x))
		rs_cat(b, NULL, "%s", cJSON_IsTrue(x) ? "on" : "off");
}

/* The DIMMs as "N x SIZE TYPE SPEED", equal ones counted together, and
 * "of M slots". */
static void rs_dimms(char *b, const cJSON *h)
{
	const cJSON *a = rs_get(h, "system.memory.dimms"), *d, *e;
	char one[128], prev[128] = "";
	int n = 0, i = 0, k;

	cJSON_ArrayForEach(d, a) {
		one[0] = 0;
		if (cJSON_IsNumber(e = cJSON_GetObjectItem(d, "size_mb")))
			snprintf(one, sizeof(one), "%g MB", e->valuedouble);
		if ((e = cJSON_GetObjectItem(d, "type")) && cJSON_IsString(e))
			snprintf(one + strlen(one), sizeof(one) - strlen(one),
				 "%s%.20s", one[0] ? " " : "", e->valuestring);
		k = cJSON_IsNumber(e = cJSON_GetObjectItem(d,
					"configured_mts")) ||
		    cJSON_IsNumber(e = cJSON_GetObjectItem(d, "speed_mts"));
		if (k)
			snprintf(one + strlen(one), sizeof(one) - strlen(one),
				 "%s%g MT/s", one[0] ? " " : "",
				 e->valuedouble);
		if (!one[0])
			snprintf(one, sizeof(one), "?");
		if (i++ && strcmp(one, prev) != 0) {
			rs_cat(b, ", ", "%d x %s", n, prev);
			n = 0;
		}
		snprintf(prev, sizeof(prev), "%s", one);
		n++;
	}
	if (n)
		rs_cat(b, ", ", "%d x %s", n, prev);
	if (b[0] && cJSON_IsNumber(rs_get(h, "system.memory.slots")))
		rs_cat(b, NULL, " in %g slot%s",
		       rs_get(h, "system.memory.slots")->valuedouble,
		       rs_get(h, "system.memory.slots")->valuedouble == 1 ?
		       "" : "s");
}

/* One row's cell of host h: fills b (empty: the host does not tell). */
typedef void rs_fill_fn(char *b, const cJSON *h, const char *arg);

static void rs_f_join(char *b, const cJSON *h, const char *arg)
{
	const char *p[4] = { NULL };
	char tmp[160], *save = NULL, *k;
	int i = 0;

	snprintf(tmp, sizeof(tmp), "%s", arg);
	for (k = strtok_r(tmp, " ", &save); k && i < 3;
	     k = strtok_r(NULL, " ", &save))
		p[i++] = k;
	rs_join(b, h, p);
}

static void rs_f_bios(char *b, const cJSON *h, const char *arg)
{
	const char *d = rs_str(h, "system.firmware.bios_date");

	(void)arg;
	rs_f_join(b, h, "system.firmware.bios_vendor system.firmware.bios_version");
	if (d)
		rs_cat(b, " ", "(%s)", d);
}

static void rs_f_cpu(char *b, const cJSON *h, const char *arg)
{
	const char *m = rs_str(h, "system.cpu.model");

	(void)arg;
	/* An older document has only the host's "cpu" (the same line of
	 * /proc/cpuinfo). */
	if (!m)
		m = rs_str(h, "cpu");
	if (m)
		rs_cat(b, NULL, "%s", m);
}

static void rs_f_cpuid(char *b, const cJSON *h, const char *arg)
{
	(void)arg;
	rs_num(b, NULL, h, "system.cpu.family", "family %g");
	rs_num(b, ", ", h, "system.cpu.model_id", "model %g");
	rs_num(b, ", ", h, "system.cpu.stepping", "stepping %g");
}

/* "N word" or "N words" for the number at path, when there is one. */
static void rs_count(char *b, const cJSON *h, const char *path,
		     const char *word)
{
	const cJSON *x = rs_get(h, path);

	if (cJSON_IsNumber(x))
		rs_cat(b, ", ", "%g %s%s", x->valuedouble, word,
		       x->valuedouble == 1 ? "" : "s");
}

static void rs_f_topo(char *b, const cJSON *h, const char *arg)
{
	(void)arg;
	rs_count(b, h, "system.cpu.sockets", "socket");
	rs_count(b, h, "system.cpu.cores", "core");
	rs_count(b, h, "system.cpu.threads", "thread");
	if (!b[0])
		rs_count(b, h, "cpus", "CPU");
}

static void rs_f_freq(char *b, const cJSON *h, const char *arg)
{
	(void)arg;
	rs_num(b, ", ", h, "system.cpu.base_mhz", "base %g MHz");
	rs_num(b, ", ", h, "system.cpu.max_mhz", "max %g MHz");
}

static void rs_f_scaling(char *b, const cJSON *h, const char *arg)
{
	const char *d = rs_str(h, "system.cpu.scaling_driver");
	const char *g = rs_str(h, "system.cpu.governor");

	(void)arg;
	if (d)
		rs_cat(b, NULL, "%s", d);
	if (g)
		rs_cat(b, ", ", "governor %s", g);
}

static void rs_f_smt(char *b, const cJSON *h, const char *arg)
{
	const char *c = rs_str(h, "system.cpu.smt_control");

	(void)arg;
	rs_bool(b, h, "system.cpu.smt");
	if (c)
		rs_cat(b, " ", "(control %s)", c);
}

static void rs_f_bool(char *b, const cJSON *h, const char *arg)
{
	rs_bool(b, h, arg);
}

static void rs_f_num(char *b, const cJSON *h, const char *arg)
{
	rs_num(b, NULL, h, arg, "%g");
}

static void rs_f_mem(char *b, const cJSON *h, const char *arg)
{
	const cJSON *x = rs_get(h, "system.memory.total_kb");

	(void)arg;
	if (!cJSON_IsNumber(x))
		x = rs_get(h, "mem_kb");
	if (cJSON_IsNumber(x) && x->valuedouble > 0)
		rs_cat(b, NULL, "%.1f GiB", x->valuedouble / 1048576);
}

static void rs_f_dimms(char *b, const cJSON *h, const char *arg)
{
	(void)arg;
	rs_dimms(b, h);
}

static void rs_f_kernel(char *b, const cJSON *h, const char *arg)
{
	const char *r = rs_str(h, "system.kernel.release");

	(void)arg;
	if (!r)
		r = rs_str(h, "kernel");
	if (r)
		rs_cat(b, NULL, "%s", r);
}

static void rs_f_image(char *b, const cJSON *h, const char *arg)
{
	const char *d = rs_str(h, "image_digest");

	(void)arg;
	rs_f_join(b, h, "image_release");
	/* The digest's first 12 hex digits tell images apart. */
	if (d && strncmp(d, "sha256:", 7) == 0)
		rs_cat(b, " ", "%.19s", d);
	else if (d)
		rs_cat(b, " ", "%s", d);
}

/* What the agent left out to keep its hello small (system.cut). */
static void rs_f_cut(char *b, const cJSON *h, const char *arg)
{
	const cJSON *x;

	(void)arg;
	cJSON_ArrayForEach(x, rs_get(h, "system.cut"))
		if (cJSON_IsString(x))
			rs_cat(b, ", ", "%s", x->valuestring);
}

static const struct rs_rowdef {
	const char *label;
	rs_fill_fn *fill;
	const char *arg;
} rs_rows[] = {
	{ "System", rs_f_join, "system.firmware.sys_vendor "
	  "system.firmware.product_name system.firmware.product_version" },
	{ "Board", rs_f_join, "system.firmware.board_vendor "
	  "system.firmware.board_name system.firmware.board_version" },
	{ "BIOS", rs_f_bios, NULL },
	{ "Processor", rs_f_cpu, NULL },
	{ "CPU id", rs_f_cpuid, NULL },
	{ "Microcode", rs_f_join, "system.cpu.microcode" },
	{ "Topology", rs_f_topo, NULL },
	{ "NUMA nodes", rs_f_num, "system.cpu.numa_nodes" },
	{ "Frequency", rs_f_freq, NULL },
	{ "Scaling", rs_f_scaling, NULL },
	{ "Boost", rs_f_bool, "system.cpu.boost" },
	{ "SMT", rs_f_smt, NULL },
	{ "Memory", rs_f_mem, NULL },
	{ "DIMMs", rs_f_dimms, NULL },
	{ "Kernel", rs_f_kernel, NULL },
	{ "Kernel build", rs_f_join, "system.kernel.version" },
	{ "Command line", rs_f_join, "system.kernel.cmdline" },
	{ "Secure Boot", rs_f_bool, "system.kernel.secure_boot" },
	{ "Lockdown", rs_f_join, "system.kernel.lockdown" },
	{ "Clocksource", rs_f_join, "system.kernel.clocksource" },
	{ "Image", rs_f_image, NULL },
	{ "Not recorded", rs_f_cut, NULL },
};

#define RS_NROWS (sizeof(rs_rows) / sizeof(rs_rows[0]))

/* One vulnerability's line (arg: its name). */
static void rs_f_vuln(char *b, const cJSON *h, const char *arg)
{
	const cJSON *v = rs_get(h, "system.cpu.vulnerabilities");
	const char *s = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(v, arg));

	if (s)
		rs_cat(b, NULL, "%s", s);
}

/* NIC number atoi(arg) of the host: name, driver and firmware, MAC,
 * link, MTU, queues, the offloads that change results. */
static void rs_f_nic(char *b, const cJSON *h, const char *arg)
{
	const cJSON *n = cJSON_GetArrayItem(cJSON_GetObjectItem(h, "nics"),
					    atoi(arg)), *o, *x;
	const char *s;

	if (!n)
		return;
	rs_f_join(b, n, "name driver");
	if ((s = rs_str(n, "firmware_version")) != NULL)
		rs_cat(b, " ", "fw %s", s);
	if ((s = rs_str(n, "bus_info")) != NULL)
		rs_cat(b, " ", "at %s", s);
	if ((s = rs_str(n, "mac")) != NULL)
		rs_cat(b, ", ", "%s", s);
	rs_num(b, ", ", n, "speed_mbps", "%g Mb/s");
	if ((s = rs_str(n, "duplex")) != NULL)
		rs_cat(b, " ", "%s", s);
	rs_num(b, ", ", n, "mtu", "MTU %g");
	rs_num(b, ", ", n, "rx_queues", "%g rx");
	rs_num(b, "/", n, "tx_queues", "%g tx queues");
	o = cJSON_GetObjectItem(n, "offloads");
	cJSON_ArrayForEach(x, o)
		if (cJSON_IsBool(x) && x->string)
			rs_cat(b, x == o->child ? ", " : " ", "%s %s",
			       x->string, cJSON_IsTrue(x) ? "on" : "off");
}

static int rs_strcmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Adds a row (label, fill, arg) when some column has a value. */
static int rs_add_row(struct report_sys *t, const char *label,
		      rs_fill_fn *fill, const char *arg)
{
	struct report_sys_row *r;
	char *b = malloc(RS_CELL);
	int c, any = 0;

	if (!b)
		return -ENOMEM;
	r = realloc(t->row, (size_t)(t->nrows + 1) * sizeof(*r));
	if (!r) {
		free(b);
		return -ENOMEM;
	}
	t->row = r;
	r = &t->row[t->nrows];
	memset(r, 0, sizeof(*r));
	snprintf(r->label, sizeof(r->label), "%s", label);
	for (c = 0; c < t->ncols; c++) {
		b[0] = 0;
		fill(b, t->col[c].host, arg);
		if (b[0] && !(r->cell[c] = strdup(b)))
			goto nomem;
		any |= b[0] != 0;
	}
	free(b);
	if (any)
		t->nrows++;
	else
		for (c = 0; c < t->ncols; c++)
			free(r->cell[c]);
	return 0;
nomem:
	free(b);
	for (c = 0; c < t->ncols; c++)
		free(r->cell[c]);
	return -ENOMEM;
}

static const char rs_na[] = "Not affected";

/* Whether every host that names vulnerability name says it is not
 * affected: those share one row, so that a long list of "Not affected"
 * does not bury the lines that differ. */
static int rs_vuln_not_affected(const struct report_sys *t, const char *name)
{
	const char *s;
	int c;

	for (c = 0; c < t->ncols; c++) {
		s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
			rs_get(t->col[c].host, "system.cpu.vulnerabilities"),
			name));
		if (s && strcmp(s, rs_na) != 0)
			return 0;
	}
	return 1;
}

/* The vulnerabilities a host says it is not affected by, when every
 * host that names them says so (sorted, comma-separated). */
static void rs_f_not_affected(char *b, const cJSON *h, const char *arg)
{
	const cJSON *v = rs_get(h, "system.cpu.vulnerabilities"), *x;
	const char *names[256];
	int n = 0, i;

	(void)arg;
	cJSON_ArrayForEach(x, v)
		if (n < 256 && x->string && cJSON_IsString(x) &&
		    strcmp(x->valuestring, rs_na) == 0)
			names[n++] = x->string;
	qsort(names, (size_t)n, sizeof(names[0]), rs_strcmp);
	for (i = 0; i < n; i++)
		rs_cat(b, ", ", "%s", names[i]);
}

/* Rows of each NIC index any host has and of every vulnerability any
 * host names (sorted), those no host is affected by in one row. */
static int rs_dynamic_rows(struct report_sys *t)
{
	const char *names[256];
	const cJSON *x;
	char label[48], arg[16];
	int nn = 0, c, i, j, nics = 0, rc = 0;

	for (c = 0; c < t->ncols; c++) {
		cJSON_ArrayForEach(x, rs_get(t->col[c].host,
					     "system.cpu.vulnerabilities")) {
			for (j = 0; j < nn; j++)
				if (strcmp(names[j], x->string) == 0)
					break;
			if (j == nn && nn < 256 && x->string)
				names[nn++] = x->string;
		}
		i = cJSON_GetArraySize(cJSON_GetObjectItem(t->col[c].host,
							   "nics"));
		nics = i > nics ? i : nics;
	}
	qsort(names, (size_t)nn, sizeof(names[0]), rs_strcmp);
	for (i = 0; i < nics && i < 32 && rc == 0; i++) {
		snprintf(label, sizeof(label), "NIC %d", i + 1);
		snprintf(arg, sizeof(arg), "%d", i);
		rc = rs_add_row(t, label, rs_f_nic, arg);
	}
	for (j = 0; j < nn && rc == 0; j++) {
		if (rs_vuln_not_affected(t, names[j]))
			continue;
		snprintf(label, sizeof(label), "Vuln. %.40s", names[j]);
		rc = rs_add_row(t, label, rs_f_vuln, names[j]);
	}
	if (rc == 0)
		rc = rs_add_row(t, "Not affected", rs_f_not_affected, NULL);
	return rc;
}

/* Whether a host named id is in a result other than run. */
static int rs_id_elsewhere(struct result_doc *rs, int n, int run,
			   const char *id)
{
	const cJSON *h;
	int i;

	for (i = 0; id && i < n; i++)
		cJSON_ArrayForEach(h, rs_get(rs[i].doc, "environment.hosts"))
			if (i != run && rs_str(h, "id") &&
			    strcmp(rs_str(h, "id"), id) == 0)
				return 1;
	return 0;
}

/* A server measured through the kit has no host entry: its system is
 * the kit's (server_identity.kit.system), a column of its own. */
static void rs_kit_column(struct result_doc *r, int run,
			  struct report_sys_col *e, int *ne)
{
	const cJSON *kit = rs_get(r->doc, "server_identity.kit");
	const char *h = rs_str(r->doc, "server_identity.host");

	if (!cJSON_IsObject(cJSON_GetObjectItem(kit, "system")))
		return;
	memset(e, 0, sizeof(*e));
	e->run = run;
	e->host = kit;
	e->id = h ? h : "?";
	e->role = "kit server";
	snprintf(e->slot, sizeof(e->slot), "kit server");
	++*ne;
}

/* The columns: every host of every result; with several results the
 * same slot (role and ordinal) of each result side by side. */
static void rs_columns(struct report_sys *t, struct result_doc *rs, int n)
{
	struct report_sys_col e[256];
	int ne = 0, i, k, j;
	const cJSON *h;

	for (i = 0; i < n; i++)
		cJSON_ArrayForEach(h, rs_get(rs[i].doc, "environment.hosts")) {
			const char *r = rs_str(h, "role");
			int ord = 1;

			if (ne == 256)
				break;
			e[ne].run = i;
			e[ne].host = h;
			e[ne].role = NULL;
			/* id holds the role until the slot is named. */
			e[ne].id = r ? r : "host";
			/* A host in several results is its own slot; the
			 * others are matched by role and ordinal. */
			if (rs_id_elsewhere(rs, n, i, rs_str(h, "id"))) {
				snprintf(e[ne].slot, sizeof(e[ne].slot),
					 "%.39s", rs_str(h, "id"));
				e[ne++].id = "";
				continue;
			}
			for (k = 0; k < ne; k++)
				ord += e[k].run == i && strcmp(e[k].id,
					r ? r : "host") == 0;
			snprintf(e[ne].slot, sizeof(e[ne].slot), "%.28s %d",
				 e[ne].id, ord);
			ne++;
		}
	for (i = 0; i < n && ne < 256; i++)
		rs_kit_column(&rs[i], i, &e[ne], &ne);
	for (k = 0; k < ne && t->ncols < REPORT_SYS_COLS; k++) {
		for (j = 0; j < k && n > 1; j++)
			if (strcmp(e[j].slot, e[k].slot) == 0)
				break;
		if (n > 1 && j < k)
			continue;	/* this slot's columns are placed */
		for (j = k; j < ne && t->ncols < REPORT_SYS_COLS; j++) {
			if (j != k && (n == 1 || strcmp(e[j].slot,
							e[k].slot) != 0))
				continue;
			t->col[t->ncols] = e[j];
			if (!e[j].role) {
				t->col[t->ncols].id = rs_str(e[j].host, "id");
				t->col[t->ncols].role = rs_str(e[j].host,
							       "role");
			}
			if (!t->col[t->ncols].id)
				t->col[t->ncols].id = "?";
			if (!t->col[t->ncols].role)
				t->col[t->ncols].role = "?";
			t->ncols++;
			if (n == 1)
				break;
		}
	}
}

/* Whether row r's cells differ between results in any slot. */
static int rs_differs(const struct report_sys *t,
		      const struct report_sys_row *r)
{
	int a, b;

	for (a = 0; a < t->ncols; a++)
		for (b = a + 1; b < t->ncols; b++) {
			if (strcmp(t->col[a].slot, t->col[b].slot) != 0 ||
			    t->col[a].run == t->col[b].run)
				continue;
			if (!r->cell[a] != !r->cell[b] ||
			    (r->cell[a] && strcmp(r->cell[a], r->cell[b])))
				return 1;
		}
	return 0;
}

/* Whether every column of r has the same value (or none). */
static int rs_same(const struct report_sys *t, const struct report_sys_row *r)
{
	int c;

	for (c = 1; c < t->ncols; c++)
		if (!r->cell[c] != !r->cell[0] ||
		    (r->cell[0] && strcmp(r->cell[c], r->cell[0]) != 0))
			return 0;
	return 1;
}

int report_sys_build(struct result_doc *rs, int n, struct report_sys *t)
{
	struct report_sys_row *sorted;
	size_t i;
	int rc = 0, k, m = 0;

	memset(t, 0, sizeof(*t));
	t->compared = n > 1;
	rs_columns(t, rs, n);
	for (i = 0; i < RS_NROWS && rc == 0; i++)
		rc = rs_add_row(t, rs_rows[i].label, rs_rows[i].fill,
				rs_rows[i].arg);
	if (rc == 0)
		rc = rs_dynamic_rows(t);
	for (k = 0; rc == 0 && k < t->nrows; k++)
		t->row[k].same = rs_same(t, &t->row[k]);
	if (rc != 0 || !t->compared || t->nrows <= 0)
		return rc;
	/* Differing rows first, each group in its own order. */
	sorted = malloc((size_t)t->nrows * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (k = 0; k < t->nrows; k++)
		t->row[k].differs = rs_differs(t, &t->row[k]);
	for (k = 0; k < t->nrows; k++)
		if (t->row[k].differs)
			sorted[m++] = t->row[k];
	t->ndiffer = m;
	for (k = 0; k < t->nrows; k++)
		if (!t->row[k].differs)
			sorted[m++] = t->row[k];
	free(t->row);
	t->row = sorted;
	return 0;
}

void report_sys_free(struct report_sys *t)
{
	int r, c;

	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++)
			free(t->row[r].cell[c]);
	free(t->row);
	t->row = NULL;
	t->nrows = 0;
}
