/* load/sql/sql.c: `benchboot sql`: options, the run's threads and the report.
 * ops and mix run on the connector engine of this build (sql_engine.h:
 * epoll or thread-per-connection, chosen by payload.mk), point-select on
 * its own (sql_point_select.h); both report the same record. */
#include <errno.h>
#include <mysql.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/hist.h"
#include "load/loadgen.h"
#include "load/sql/sql.h"
#include "load/sql/sql_engine.h"
#include "load/sql/sql_ops.h"
#include "load/sql/sql_point_select.h"
#include "load/sql/sql_statements.h"
#include "lib/util.h"

/* point-select: its own engine (sql_point_select.c) on every architecture. */
static void *ps_thr_main(void *arg)
{
	struct sql_engine_thr *t = arg;

	if (sql_point_select_loop(t->run, t->first, t->nconns, &t->st) != 0)
		t->st.err[SQL_E_CLIENT]++;
	return NULL;
}

static int sql_is_ps(const struct sql_run *run)
{
	return strcmp(run->wl->name, "point-select") == 0;
}

/* --- command line and report --------------------------------------- */

static void sql_report(struct sql_run *run, struct sql_stats *tot,
		       double elapsed, uint64_t real0, int json)
{
	const struct sql_workload *wl = run->wl;
	unsigned i;

	if (json) {
		cJSON *rec = lg_record_new("sql", real0, run->start_ns,
					   elapsed);
		cJSON *p, *cn, *bk, *er, *lat;

		if (!rec)
			return;
		p = cJSON_AddObjectToObject(rec, "params");
		cJSON_AddStringToObject(p, "sql_workload", wl->name);
		cJSON_AddNumberToObject(p, "threads", run->threads);
		cJSON_AddNumberToObject(p, "connections", run->conns);
		cJSON_AddNumberToObject(p, "duration_s",
					(double)run->duration_ns / 1e9);
		cJSON_AddStringToObject(p, "mode", run->rate > 0 ? "open" :
					"closed");
		cJSON_AddNumberToObject(p, "rate", run->rate);
		cJSON_AddStringToObject(p, "table", run->cfg.table);
		cJSON_AddNumberToObject(p, "rows", (double)run->cfg.rows);
		cJSON_AddNumberToObject(p, "seed", (double)run->cfg.seed);
		cJSON_AddStringToObject(p, "server", run->tg.socket ?
					run->tg.socket : run->tg.host ?
					run->tg.host : "localhost");
		cJSON_AddNumberToObject(p, "port", run->tg.port);
		cJSON_AddStringToObject(p, "engine", sql_is_ps(run) ? "wire" :
					sql_engine_name);
		cn = cJSON_AddObjectToObject(rec, "counters");
		cJSON_AddNumberToObject(cn, "statements", (double)tot->stmts);
		bk = cJSON_AddObjectToObject(cn, "by_kind");
		for (i = 0; i < wl->nkinds; i++)
			cJSON_AddNumberToObject(bk, wl->kinds[i],
						(double)tot->kinds[i]);
		cJSON_AddNumberToObject(cn, "setup_statements",
					(double)tot->setup_stmts);
		cJSON_AddNumberToObject(cn, "teardown_statements",
					(double)tot->teardown_stmts);
		cJSON_AddNumberToObject(cn, "connects", (double)tot->connects);
		er = cJSON_AddObjectToObject(rec, "errors");
		for (i = 0; i < SQL_E_N; i++)
			cJSON_AddNumberToObject(er, sql_err_names[i],
						(double)tot->err[i]);
		lat = hist_to_json(&tot->lat);
		if (lat)
			cJSON_AddItemToObject(rec, "latency", lat);
		lg_record_print(rec);
		return;
	}
	printf("sql %s: %u threads, %u connections, %.2f s, %s loop, %s engine\n", wl->name, run->threads, run->conns, elapsed,
	       run->rate > 0 ? "open" : "closed",
	       sql_is_ps(run) ? "wire" : sql_engine_name);
	printf("  statements  %llu (%.1f/s)", (unsigned long long)tot->stmts,
	       elapsed > 0 ? (double)tot->stmts / elapsed : 0);
	if (wl->nkinds > 1)
		for (i = 0; i < wl->nkinds; i++)
			printf("%s %s %llu", i ? "," : ":", wl->kinds[i],
			       (unsigned long long)tot->kinds[i]);
	printf("\n  setup       %llu statements, %llu connects\n",
	       (unsigned long long)tot->setup_stmts,
	       (unsigned long long)tot->connects);
	lg_print_latency(stdout, &tot->lat);
	printf("  errors     ");
	for (i = 0; i < SQL_E_N; i++)
		printf(" %s %llu%s", sql_err_names[i],
		       (unsigned long long)tot->err[i],
		       i + 1 < SQL_E_N ? "," : "\n");
}

/* point-select without --rows: the table's MAX(id), as sysbench fills
 * ids 1..table-size. */
static int sql_detect_rows(struct sql_run *run, struct sql_stats *tot)
{
	char err[256], q[160];
	MYSQL_RES *res;
	MYSQL_ROW row;
	MYSQL *m;
	int cls;

	m = sql_connect(&run->tg, err, sizeof(err), &cls);
	if (!m) {
		tot->err[cls]++;
		util_err("sql", EIO, "cannot count the rows of %s (%s); assuming 10000", run->cfg.table, err);
		run->cfg.rows = 10000;
		return 0;
	}
	snprintf(q, sizeof(q), "SELECT MAX(id) FROM %s", run->cfg.table);
	if (mysql_query(m, q) != 0 || !(res = mysql_store_result(m))) {
		util_err("sql", EINVAL, "%s: %s (create it with sysbench oltp_point_select prepare, or give --table)", q,
			 mysql_error(m));
		mysql_close(m);
		return -EINVAL;
	}
	row = mysql_fetch_row(res);
	run->cfg.rows = row && row[0] ? strtoull(row[0], NULL, 10) : 0;
	mysql_free_result(res);
	mysql_close(m);
	if (run->cfg.rows == 0)
		return util_err("sql", EINVAL, "table %s is empty",
				run->cfg.table);
	return 0;
}

static int sql_ident_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 48)
		return 0;
	for (i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

/* Thread i's state: its share of the connections (the first is number
 * *k of the run, *k advanced past them), each with its statement buffer. */
static int sql_thr_setup(struct sql_run *run, struct sql_engine_thr *t,
			 unsigned i, unsigned nthr, unsigned *k)
{
	unsigned j;

	t->run = run;
	t->ep = -1;
	hist_init(&t->st.lat);
	t->nconns = (unsigned)lg_share(run->conns, nthr, i);
	t->first = *k;
	t->conns = calloc(t->nconns, sizeof(*t->conns));
	t->ready = calloc(t->nconns, sizeof(*t->ready));
	if (!t->conns || !t->ready)
		return -ENOMEM;
	for (j = 0; j < t->nconns; j++, (*k)++) {
		struct sql_engine_conn *c = &t->conns[j];

		c->t = t;
		c->fd = -1;
		c->buf = malloc(SQL_STMT_BUF);
		if (!c->buf)
			return -ENOMEM;
		sql_stmt_conn_init(&run->cfg, &c->wc, *k);
	}
	return sql_engine_thr_init(t);
}

/* Starts the measured interval once every connection is set up, or after
 * one timeout (unreachable servers are then counted, not waited for);
 * with failed set, at once and empty.  Started by an agent (loadgen.h's
 * gate), every connection must be set up within the prepare budget and
 * the interval starts at the controller's start, the same on every
 * client; a set-up that does not finish fails the run (*gate_rc).
 * Returns the wall clock then. */
static uint64_t sql_go(struct sql_run *run, int failed, int *gate_rc)
{
	uint64_t deadline = util_mono_ns() +
			    lg_gate_budget_ns(run->timeout_ns), real0;
	unsigned done;

	while (!failed && atomic_load(&run->setup_done) < run->conns &&
	       util_mono_ns() < deadline)
		usleep(2000);
	done = atomic_load(&run->setup_done);
	if (lg_gate_active()) {
		*gate_rc = lg_gate(!failed && done >= run->conns);
		if (*gate_rc == -ECANCELED && !failed)
			util_err("sql", ETIMEDOUT, "prepare: %u of %u connections set up within %.0f s", done, run->conns, (double)lg_gate_budget_ns(0) / 1e9);
		else if (*gate_rc != 0 && !failed)
			util_err("sql", -*gate_rc, "prepare gate: %s", lg_gate_strerror(*gate_rc));
		failed |= *gate_rc != 0;
	}
	real0 = util_real_ns();
	run->start_ns = util_mono_ns();
	run->end_ns = run->start_ns + (failed ? 0 : run->duration_ns);
	atomic_store(&run->go, 1);
	return real0;
}

/* Adds thread t's counts to tot and frees what sql_thr_setup() made. */
static void sql_thr_merge(struct sql_stats *tot, struct sql_engine_thr *t)
{
	unsigned j;

	/* The counters up to end_at are uint64_t only. */
	lg_sum_u64(tot, &t->st, offsetof(struct sql_stats, end_at) /
				sizeof(uint64_t));
	hist_merge(&tot->lat, &t->st.lat);
	if (t->st.end_at > tot->end_at)
		tot->end_at = t->st.end_at;
	for (j = 0; t->conns && j < t->nconns; j++)
		free(t->conns[j].buf);
	free(t->conns);
	free(t->ready);
	sql_engine_thr_fini(t);
}

static int sql_run_conns(struct sql_run *run, int json)
{
	struct lg_threads lt = { 0 };
	struct sql_engine_thr *thr;
	struct sql_stats *tot;
	uint64_t real0;
	unsigned i, k = 0, nthr;
	int rc = 0, gate_rc = 0;

	tot = calloc(1, sizeof(*tot));
	nthr = sql_engine_nthreads(run);
	thr = calloc(nthr, sizeof(*thr));
	if (!tot || !thr) {
		free(tot);
		free(thr);
		return util_err("sql", ENOMEM, "out of memory");
	}
	hist_init(&tot->lat);
	if (sql_is_ps(run) && run->cfg.rows == 0) {
		rc = sql_detect_rows(run, tot);
		if (rc != 0)
			goto out;
	}
	mysql_library_init(0, NULL, NULL);
	for (i = 0; i < nthr && rc == 0; i++)
		rc = sql_thr_setup(run, &thr[i], i, nthr, &k);
	if (rc == 0)
		rc = lg_threads_start(&lt, thr, sizeof(*thr), nthr,
				      sql_is_ps(run) ? ps_thr_main :
				      sql_engine_thr_main);
	if (rc != 0)
		rc = util_err("sql", ENOMEM, "cannot set up %u connections", run->conns);
	real0 = sql_go(run, rc != 0, &gate_rc);
	lg_threads_join(&lt);
	for (i = 0; i < nthr; i++)
		sql_thr_merge(tot, &thr[i]);
	/* Not prepared: the record says how far it got (setup_statements,
	 * no statement measured) and the exit status that it failed. */
	tot->err[SQL_E_PREPARE] += gate_rc != 0;
	if (rc == 0)
		sql_report(run, tot, tot->end_at > run->start_ns ?
			   (double)(tot->end_at - run->start_ns) / 1e9 : 0,
			   real0, json);
	if (rc == 0 && gate_rc != 0)
		rc = gate_rc;
out:
	free(thr);
	free(tot);
	return rc;
}

/* Everything the command line sets: the base of sql_opts[]. */
struct sql_cmdline {
	struct sql_run run;
	const char *workload;
	uint64_t timeout;
	int json;
};

#define SQ(m) OPT_AT(struct sql_cmdline, m)

static const struct opt sql_opts[] = {
	{ .name = "workload", .kind = OPT_STR, .off = SQ(workload),
	  .arg = "W", .help = "the workload (required)",
	  .values = "ops|mix|point-select", .remote = 1 },
	LG_OPT_THREADS(SQ(run.threads), 256, "-t '%s': want 1..256",
		       .help = "event-loop threads", .def = "1", .remote = 1),
	LG_OPT_CONNS(SQ(run.conns), 10000, "-c '%s': want 1..10000",
		     .help = "connections (ops uses one)", .def = "1",
		     .remote = 1),
	LG_OPT_DURATION(SQ(run.duration_ns),
			"-d '%s': want a duration like 10s",
			.help = "measured time (not for ops)", .def = "10s",
			.remote = 1),
	LG_OPT_RATE_PER_S(SQ(run.rate),
			  "--rate '%s': want statements per second > 0",
			  .help = "open loop at R statements/s (latency from "
				  "the intended send time)",
			  .def = "closed loop", .remote = 1),
	{ .name = "rows", .kind = OPT_U64, .off = SQ(run.cfg.rows),
	  .min = 1, .max = 4000000000ULL,
	  .bad = "--rows '%s': want 1..4G", .arg = "N",
	  .help = "table rows (ops: 100000, mix: 1000 per connection, "
		  "point-select: found with MAX(id))", .remote = 1 },
	{ .name = "table", .kind = OPT_STR, .off = SQ(run.cfg.table),
	  .arg = "NAME",
	  .help = "the point-select table (sbtest1), the mix tables' "
		  "prefix (bb_mix), the ops table (bb_addr)", .remote = 1 },
	{ .name = "seed", .kind = OPT_U64, .off = SQ(run.cfg.seed),
	  .max = UINT64_MAX,
	  .bad = "--seed '%s': want an unsigned number", .arg = "N",
	  .help = "data generator seed", .def = "1", .remote = 1 },
	{ .name = "keep", .kind = OPT_FLAG, .off = SQ(run.cfg.keep),
	  .val = 1, .help = "keep the tables the workload created",
	  .remote = 1 },
	LG_OPT_TIMEOUT(SQ(timeout), 1,
		       "--timeout '%s': want a duration like 10s",
		       .help = "connect, read and write timeout",
		       .def = "10s", .remote = 1),
	{ .name = "host", .kind = OPT_STR, .off = SQ(run.tg.host),
	  .arg = "H", .help = "the server", .def = "localhost",
	  .remote = 1 },
	{ .name = "port", .kind = OPT_UINT, .off = SQ(run.tg.port),
	  .min = 1, .max = 65535,
	  .bad = "--port '%s': want 1..65535", .arg = "P",
	  .help = "its port", .def = "3306", .remote = 1 },
	{ .name = "socket", .kind = OPT_STR, .off = SQ(run.tg.socket),
	  .local = "opens a local socket", .arg = "PATH",
	  .help = "a Unix socket instead of TCP" },
	{ .name = "user", .kind = OPT_STR, .off = SQ(run.tg.user),
	  .arg = "U", .help = "the account", .def = "root", .remote = 1 },
	{ .name = "password", .kind = OPT_STR, .off = SQ(run.tg.password),
	  .arg = "PW", .help = "its password", .remote = 1 },
	{ .name = "db", .kind = OPT_STR, .off = SQ(run.tg.db),
	  .arg = "DB", .help = "the database", .remote = 1 },
	LG_OPT_JSON(SQ(json), .help = "print the workload record "
		    "(docs/result-schema.md)", .remote = 1),
};

const struct optset sql_optset = OPTSET("sql", sql_opts,
	"--workload=ops|mix|point-select [options]", NULL);

/* Options into run; *workload, *timeout and *json.  Returns 0 to go on, 1
 * after --help, -EINVAL on a usage error (said on stderr). */
static int sql_parse(int argc, char **argv, struct sql_run *run,
		     const char **workload, uint64_t *timeout, int *json)
{
	static struct sql_cmdline cl;
	int argi, rc;

	/* The table's base holds the run: a copy in and out (no thread
	 * runs yet, its atomics are zero). */
	memset(&cl, 0, sizeof(cl));
	memcpy(&cl.run, run, sizeof(*run));
	cl.workload = *workload;
	cl.timeout = *timeout;
	cl.json = *json;
	rc = opt_main(&sql_optset, &cl, argc, argv, &argi);
	memcpy(run, &cl.run, sizeof(*run));
	*workload = cl.workload;
	*timeout = cl.timeout;
	*json = cl.json;
	if (rc != 0)
		return rc;
	if (argi != argc || !*workload) {
		util_err("sql", EINVAL, "need --workload=ops|mix|point-select and no other arguments");
		opt_usage(&sql_optset, stderr);
		return -EINVAL;
	}
	return 0;
}

/* mix: table names unique per client process, as many clients share one
 * server: a hash of the host name and the pid. */
static void sql_mix_tag(struct sql_run *run)
{
	uint32_t h = 2166136261u;
	char host[64];
	size_t i;

	util_hostname(host, sizeof(host));
	for (i = 0; host[i]; i++)
		h = (h ^ (uint8_t)host[i]) * 16777619u;
	h = (h ^ (uint32_t)getpid()) * 16777619u;
	snprintf(run->cfg.tag, sizeof(run->cfg.tag), "%08x", h);
}

int sql_main(int argc, char **argv)
{
	static struct sql_run run;
	const char *workload = NULL, *table;
	uint64_t timeout = 10000000000ULL;
	int json = 0, ops, rc;

	memset(&run, 0, sizeof(run));
	run.threads = 1;
	run.conns = 1;
	run.duration_ns = 10000000000ULL;
	run.cfg.seed = 1;
	run.tg.user = "root";
	rc = sql_parse(argc, argv, &run, &workload, &timeout, &json);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	ops = strcmp(workload, "ops") == 0;
	run.wl = sql_stmt_find(workload);
	if (!ops && !run.wl) {
		util_err("sql", EINVAL, "--workload '%s': want ops, mix or point-select", workload);
		return 2;
	}
	table = run.cfg.table;
	if (!table)
		table = ops ? "bb_addr" : strcmp(workload, "mix") == 0 ?
			"bb_mix" : "sbtest1";
	if (!sql_ident_ok(table)) {
		util_err("sql", EINVAL, "--table '%s': want 1..48 of [A-Za-z0-9_]", table);
		return 2;
	}
	run.cfg.table = table;
	run.timeout_ns = timeout;
	run.tg.timeout_s = (unsigned)((timeout + 999999999ULL) / 1000000000ULL);
	if (run.conns < run.threads)
		run.threads = run.conns;
	signal(SIGPIPE, SIG_IGN);
	if (ops)
		return sql_ops_run(&run.tg, table, run.cfg.rows ?
				   run.cfg.rows : 100000, run.cfg.seed,
				   run.cfg.keep, json) == 0 ? 0 : 1;
	if (strcmp(workload, "mix") == 0) {
		if (!run.cfg.rows)
			run.cfg.rows = 1000;
		sql_mix_tag(&run);
	}
	return sql_run_conns(&run, json) == 0 ? 0 : 1;
}
