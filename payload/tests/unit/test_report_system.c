/* test_report_system.c: the hosts' system table (report_system.c) and
 * how the report shows it: the committed fixtures given a "system" (and
 * NICs) per host, one result (every row, equal values once), two results
 * (the rows that differ first and marked, a host matched by its id),
 * hostile strings escaped in HTML and without control characters in the
 * terminal, the system fields' types validated by path, and the trend's
 * x labels thinned so that they never overlap. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_html.h"
#include "report/report_system.h"
#include "report/report_text.h"
#include "result/result_doc.h"
#include "tap.h"

#define FIX "payload/tests/fixtures/results/"

static char *slurp(const char *name)
{
	const char *top = getenv("TOP");
	char p[4096], *b;
	FILE *f;
	long n;

	snprintf(p, sizeof(p), "%s%s" FIX "%s", top ? top : "",
		 top ? "/" : "", name);
	f = fopen(p, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	if (b)
		b[n] = 0;
	return b;
}

static const char sys_json[] =
	"{\"firmware\":{\"sys_vendor\":\"QEMU\",\"product_name\":"
	"\"Standard PC (i440FX + PIIX, 1996)\",\"bios_vendor\":\"SeaBIOS\","
	"\"bios_version\":\"1.16.3\",\"bios_date\":\"04/01/2014\"},"
	"\"cpu\":{\"model\":\"Xeon\",\"family\":6,\"model_id\":85,"
	"\"stepping\":4,\"microcode\":\"0x1\",\"sockets\":1,\"cores\":2,"
	"\"threads\":2,\"boost\":true,\"vulnerabilities\":{\"meltdown\":"
	"\"Not affected\"}},\"memory\":{\"total_kb\":2097152,\"slots\":2,"
	"\"dimms\":[{\"locator\":\"DIMM 0\",\"size_mb\":1024,\"type\":\"RAM\"},"
	"{\"locator\":\"DIMM 1\",\"size_mb\":1024,\"type\":\"RAM\"}]},"
	"\"kernel\":{\"release\":\"6.1.0-57-amd64\",\"clocksource\":\"tsc\"}}";

/* The fixture name with every host given sys_json, then edit(doc). */
static int load(const char *name, void (*edit)(cJSON *),
		struct result_doc *r, char *err, size_t errlen)
{
	char *text = slurp(name), *out;
	cJSON *d = text ? cJSON_Parse(text) : NULL, *h;
	int rc;

	free(text);
	if (!d)
		return -ENOENT;
	cJSON_ArrayForEach(h, cJSON_GetObjectItem(cJSON_GetObjectItem(d,
				"environment"), "hosts"))
		cJSON_AddItemToObject(h, "system", cJSON_Parse(sys_json));
	if (edit)
		edit(d);
	out = cJSON_PrintUnformatted(d);
	cJSON_Delete(d);
	rc = out ? result_doc_parse(out, strlen(out), name, r, err, errlen) :
	     -ENOMEM;
	free(out);
	return rc;
}

static cJSON *host(cJSON *d, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(d,
				"environment"), "hosts"), i);
}

static cJSON *sys_part(cJSON *d, int i, const char *part)
{
	return cJSON_GetObjectItem(cJSON_GetObjectItem(host(d, i), "system"),
				   part);
}

/* B: a newer kernel and microcode on every host; a NIC on the first. */
static void e_newer(cJSON *d)
{
	cJSON *h;
	int i = 0;

	cJSON_ArrayForEach(h, cJSON_GetObjectItem(cJSON_GetObjectItem(d,
				"environment"), "hosts")) {
		cJSON_ReplaceItemInObject(sys_part(d, i, "kernel"), "release",
					  cJSON_CreateString("6.12.9"));
		cJSON_ReplaceItemInObject(sys_part(d, i++, "cpu"),
					  "microcode",
					  cJSON_CreateString("0x2"));
	}
	cJSON_AddItemToObject(host(d, 0), "nics", cJSON_Parse(
		"[{\"name\":\"eth0\",\"driver\":\"virtio_net\",\"mac\":"
		"\"52:54:00:12:34:56\",\"speed_mbps\":1000,\"duplex\":\"full\","
		"\"mtu\":1500,\"offloads\":{\"tso\":true,\"lro\":false}}]"));
}

static void e_hostile(cJSON *d)
{
	cJSON_ReplaceItemInObject(sys_part(d, 0, "firmware"), "sys_vendor",
		cJSON_CreateString("<script>x</script>\x1b[31m\r\xc2\x9b" "2J"));
}

static void e_bad_num(cJSON *d)
{
	cJSON_ReplaceItemInObject(sys_part(d, 1, "cpu"), "threads",
				  cJSON_CreateString("2"));
}

static void e_bad_bool(cJSON *d)
{
	cJSON_AddItemToObject(sys_part(d, 0, "kernel"), "secure_boot",
			      cJSON_CreateNumber(1));
}

static void e_bad_dimm(cJSON *d)
{
	cJSON_ReplaceItemInObject(sys_part(d, 2, "memory"), "dimms",
				  cJSON_Parse("[{\"size_mb\":\"1G\"}]"));
}

static void e_bad_part(cJSON *d)
{
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(host(d, 0), "system"),
				  "cpu", cJSON_CreateString("fast"));
}

/* A server measured through the kit: its system in server_identity. */
static void e_kit(cJSON *d)
{
	cJSON *si = cJSON_Parse("{\"host\": \"10.0.0.9\", \"kit\": {"
		"\"kit\": 1, \"os\": \"freebsd\", \"system\": {\"cpu\": "
		"{\"model\": \"Intel(R) Xeon(R) E-2386G\", \"threads\": 12},"
		"\"kernel\": {\"release\": \"14.1-RELEASE\"}}}}");

	cJSON_AddItemToObject(d, "server_identity", si);
}

static char *render(int (*fn)(FILE *, struct result_doc *, int),
		    struct result_doc *rs, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fn(f, rs, n);
	fclose(f);
	return buf;
}

static int row_of(const struct report_sys *t, const char *label)
{
	int r;

	for (r = 0; r < t->nrows; r++)
		if (strcmp(t->row[r].label, label) == 0)
			return r;
	return -1;
}

static void test_one(void)
{
	static const char *const rows[] = { "System", "BIOS", "Processor",
		"CPU id", "Microcode", "Topology", "Boost", "Memory", "DIMMs",
		"Kernel", "Clocksource", "Not affected" };
	struct result_doc r;
	struct report_sys t;
	char err[256], *txt, *html, *a;
	size_t i;
	int rc, k;

	rc = load("run-a.json", NULL, &r, err, sizeof(err));
	if (!tap_ok(rc == 0, "one result with a system per host: valid")) {
		printf("#   %s\n", err);
		return;
	}
	rc = report_sys_build(&r, 1, &t);
	tap_ok(rc == 0 && t.ncols == 4 && !t.compared && t.ndiffer == 0,
	       "one result: a column per host (%d)", t.ncols);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		k = row_of(&t, rows[i]);
		tap_ok(k >= 0 && t.row[k].same && t.row[k].cell[0],
		       "one result: row %s, the same on every host (%s)",
		       rows[i], k >= 0 && t.row[k].cell[0] ?
		       t.row[k].cell[0] : "-");
	}
	k = row_of(&t, "DIMMs");
	TAP_EQ_STR(k >= 0 ? t.row[k].cell[1] : NULL,
		   "2 x 1024 MB RAM in 2 slots", "DIMMs: equal ones counted");
	tap_ok(row_of(&t, "Board") < 0 && row_of(&t, "Secure Boot") < 0 &&
	       row_of(&t, "NIC 1") < 0,
	       "rows no host tells are left out (Board, Secure Boot, NIC)");
	report_sys_free(&t);
	txt = render(report_text, &r, 1);
	html = render(report_html, &r, 1);
	a = txt ? strstr(txt, "\n    BIOS  ") : NULL;
	/* The BIOS line holds the value, and only once in the report. */
	tap_ok(txt && strstr(txt, "\nsystem: one column per host") && a &&
	       strstr(a, "  SeaBIOS 1.16.3 (04/01/2014)\n") ==
	       strchr(a + 1, '\n') - strlen("  SeaBIOS 1.16.3 (04/01/2014)") &&
	       !strstr(strstr(a, "(04/01/2014)") + 1, "(04/01/2014)"),
	       "text: the system table, an equal value said once");
	tap_ok(html && strstr(html, "<table class=\"sys\">") &&
	       strstr(html, "<th>Processor</th><td colspan=\"4\">Xeon</td>"),
	       "html: the system table, an equal value in one cell");
	tap_ok(txt && strstr(txt, "\nsteps: median over repeats") &&
	       !strstr(txt, "against concurrency"),
	       "text: one result's steps in one table, not one per step");
	free(txt);
	free(html);
	result_doc_free(&r);
}

static void test_compare(void)
{
	struct result_doc rs[2];
	struct report_sys t;
	char err[256], *txt, *html, *a, *b;
	int rc, k;

	rc = load("run-a.json", NULL, &rs[0], err, sizeof(err));
	if (rc == 0)
		rc = load("run-b.json", e_newer, &rs[1], err, sizeof(err));
	if (!tap_ok(rc == 0, "A and B (newer kernel, microcode, a NIC)")) {
		printf("#   %s\n", err);
		return;
	}
	rc = report_sys_build(rs, 2, &t);
	tap_ok(rc == 0 && t.compared && t.ncols == 8,
	       "two results: a column per host of each (%d)", t.ncols);
	tap_ok(t.ndiffer == 3 && t.row[0].differs && t.row[1].differs &&
	       t.row[2].differs && !t.row[3].differs,
	       "three rows differ, and they come first (%d)", t.ndiffer);
	tap_ok(row_of(&t, "Microcode") < 3 && row_of(&t, "Kernel") < 3 &&
	       row_of(&t, "NIC 1") < 3,
	       "  they are Microcode, Kernel and NIC 1 (B's only)");
	k = row_of(&t, "NIC 1");
	TAP_EQ_STR(k >= 0 ? t.row[k].cell[1] : NULL,
		   "eth0 virtio_net, 52:54:00:12:34:56, 1000 Mb/s full, "
		   "MTU 1500, tso on lro off", "NIC row: B's first host");
	for (k = 0; k < t.ncols; k += 2)
		if (t.col[k].run != 0 || t.col[k + 1].run != 1 ||
		    strcmp(t.col[k].id, t.col[k + 1].id) != 0)
			break;
	tap_ok(k == t.ncols, "each host of A beside the same host of B");
	report_sys_free(&t);
	txt = render(report_text, rs, 2);
	html = render(report_html, rs, 2);
	a = txt ? strstr(txt, "\n  * Microcode") : NULL;
	b = txt ? strstr(txt, "(the same in every result:)") : NULL;
	tap_ok(a && b && a < b && strstr(txt, "\n  * Kernel"),
	       "text: the differing rows marked * and above the others");
	a = html ? strstr(html, "<tr class=\"differs\">") : NULL;
	b = html ? strstr(html, "<th>System</th>") : NULL;
	tap_ok(a && b && a < b && strstr(html, "3 rows differ"),
	       "html: the differing rows shaded, marked and first");
	tap_ok(txt && strstr(txt, "B/A") && strstr(txt, "against concurrency"),
	       "text: two results keep their side-by-side tables");
	free(txt);
	free(html);
	result_doc_free(&rs[0]);
	result_doc_free(&rs[1]);
}

static void test_hostile(void)
{
	struct result_doc r;
	char err[256], *txt, *html;
	int rc;

	rc = load("run-a.json", e_hostile, &r, err, sizeof(err));
	if (!tap_ok(rc == 0, "a hostile firmware string: accepted")) {
		printf("#   %s\n", err);
		return;
	}
	txt = render(report_text, &r, 1);
	html = render(report_html, &r, 1);
	tap_ok(html && strstr(html, "&lt;script&gt;x&lt;/script&gt;") &&
	       !strstr(html, "<script>"), "html: escaped");
	tap_ok(txt && strstr(txt, "<script>x</script>?[31m??") &&
	       !strchr(txt, '\x1b') && !strchr(txt, '\r') &&
	       !strstr(txt, "\xc2\x9b"),
	       "text: ESC, CR and the C1 CSI shown as '?'");
	free(txt);
	free(html);
	result_doc_free(&r);
}

static const struct {
	const char *name;
	void (*edit)(cJSON *);
	const char *want;
} bad[] = {
	{ "threads as a string", e_bad_num,
	  "\"environment.hosts[1].system.cpu.threads\": expected a number" },
	{ "secure_boot as a number", e_bad_bool,
	  "\"environment.hosts[0].system.kernel.secure_boot\": expected true or false" },
	{ "a DIMM's size as a string", e_bad_dimm,
	  "\"environment.hosts[2].system.memory.dimms[0].size_mb\": expected a number" },
	{ "cpu as a string", e_bad_part,
	  "\"environment.hosts[0].system.cpu\": expected an object" },
};

static void test_validation(void)
{
	struct result_doc r;
	char err[256];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		rc = load("run-a.json", bad[i].edit, &r, err, sizeof(err));
		if (!tap_ok(rc == -EINVAL && strstr(err, bad[i].want),
			    "refused, naming the field: %s", bad[i].name))
			printf("#   rc %d: %s\n", rc, err);
		if (rc == 0)
			result_doc_free(&r);
	}
}

/* Labels of len characters on n points across the trend's 484 pixels:
 * every e-th drawn, e the least that keeps them apart. */
static void test_label_every(void)
{
	int n, nbad = 0, len, e;
	double step, need;

	for (len = 1; len <= 24; len++)
		for (n = 1; n <= 400; n++) {
			step = 484.0 / n;
			need = len * 7.0 + 8;
			e = report_html_label_every(n, (size_t)len, step);
			/* (1e-9: need / step's rounding.) */
			if (e < 1 || e * step < need - 1e-9 ||
			    (e > 1 && (e - 1) * step >= need + 1e-9))
				nbad++;
		}
	TAP_EQ_INT(nbad, 0, "trend labels: every e-th, e the least that never overlaps (1..400 points, 1..24 characters)");
	TAP_EQ_INT(report_html_label_every(7, 11, 484.0 / 7), 2,
		   "7 runs of 'MM-DD HH:MM': every second labelled");
	TAP_EQ_INT(report_html_label_every(60, 11, 484.0 / 60), 11,
		   "60 runs: every 11th (the old rule drew every 5th)");
}

static void test_kit(void)
{
	struct result_doc r;
	struct report_sys t;
	char err[256], *html;
	int rc, k;

	rc = load("run-a.json", e_kit, &r, err, sizeof(err));
	if (!tap_ok(rc == 0, "a kit server's system in server_identity")) {
		printf("#   %s\n", err);
		return;
	}
	rc = report_sys_build(&r, 1, &t);
	k = t.ncols - 1;
	tap_ok(rc == 0 && t.ncols == 5 && strcmp(t.col[k].role,
						 "kit server") == 0 &&
	       strcmp(t.col[k].id, "10.0.0.9") == 0,
	       "kit: a column of its own, the server's address as its id");
	k = row_of(&t, "Kernel");
	TAP_EQ_STR(k >= 0 ? t.row[k].cell[4] : NULL, "14.1-RELEASE",
		   "kit: its kernel row");
	k = row_of(&t, "System");
	tap_ok(k >= 0 && !t.row[k].cell[4] && !t.row[k].same,
	       "kit: what it does not tell stays empty");
	report_sys_free(&t);
	html = render(report_html, &r, 1);
	tap_ok(html && strstr(html, "A kit server<br><span class=\"hid\">"
			      "10.0.0.9</span>"), "kit: its column in the page");
	free(html);
	result_doc_free(&r);
}

int main(void)
{
	test_one();
	test_compare();
	test_hostile();
	test_validation();
	test_label_every();
	test_kit();
	return tap_done();
}
