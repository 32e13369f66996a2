/* report/report_text.c: `benchboot report`'s terminal tables: figures as
 * median ± half-CI per step and concurrency, each result beside the first
 * with its ratio and whether the difference is beyond chance. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_system.h"
#include "report/report_mdc.h"
#include "report/report_text.h"
#include "result/result_doc.h"

/* A figure with about four significant digits, no exponent for the
 * ranges results have. */
static void report_fmt(char *b, size_t n, double v)
{
	double a = fabs(v);

	if (a >= 1000)
		snprintf(b, n, "%.0f", v);
	else if (a >= 100)
		snprintf(b, n, "%.1f", v);
	else if (a >= 10)
		snprintf(b, n, "%.2f", v);
	else if (a >= 0.01 || a == 0)
		snprintf(b, n, "%.3f", v);
	else
		snprintf(b, n, "%.3g", v);
}

/* "median ± half-CI (n)" scaled by div; "-" when absent. */
static void report_fmt_stat(char *b, size_t n, const struct result_doc_stat *s,
			    double div)
{
	char m[32], h[32];

	if (s->n == 0) {
		snprintf(b, n, "-");
		return;
	}
	report_fmt(m, sizeof(m), s->median / div);
	if (s->n < 2) {
		/* One repeat has no interval: say so rather than "± 0". */
		snprintf(b, n, "%s (1)", m);
		return;
	}
	report_fmt(h, sizeof(h), (s->hi - s->lo) / 2 / div);
	snprintf(b, n, "%s ± %s (%d)", m, h, s->n);
}

/* Prints s padded to width display columns (UTF-8 aware). */
static void report_cell(FILE *out, const char *s, int width, int right)
{
	int cols = 0;
	const char *c;

	for (c = s; *c; c++)
		if (((unsigned char)*c & 0xc0) != 0x80)
			cols++;
	if (right)
		fprintf(out, "%*s%s", cols < width ? width - cols : 0, "", s);
	else
		fprintf(out, "%s%*s", s, cols < width ? width - cols : 0, "");
}

static const char *report_sig_str(int sig)
{
	return sig < 0 ? "n<2" : sig ? "yes" : "no";
}

static char report_letter(int i)
{
	return (char)('A' + i % 26);
}

/* The error-rate and flag cells of one result's row (throughput table);
 * the flag is padded unless it ends the line (last). */
static void report_err_cells(FILE *out, const struct result_doc_step *st,
			     const struct result_doc_wl *w, int last)
{
	double e = w ? result_doc_wl_error_rate(w) : -1;
	const char *fl;
	char b[32];

	if (e < 0)
		snprintf(b, sizeof(b), "-");
	else
		snprintf(b, sizeof(b), e > 0 && e < 0.0001 ? "%.4f" : "%.2f",
			 e * 100);
	fl = st && !st->skipped ? result_doc_step_flag(st) : "";
	fprintf(out, "  %6s", b);
	if (!last || fl[0])
		fprintf(out, "  %-*s", last ? 0 : 7, fl);
}

/* Under a throughput table: every step of k with an invalid repeat, why
 * (the first reason), and that it is not averaged. */
static void report_invalid_notes(FILE *out, struct result_doc *rs, int n,
				 const struct result_doc_key *k)
{
	int i, s;

	for (i = 0; i < n; i++)
		for (s = 0; s < rs[i].nsteps; s++) {
			const struct result_doc_step *st = &rs[i].steps[s];

			if (strcmp(st->step, k->step) != 0 || !st->invalid)
				continue;
			fprintf(out, "  %c: %s: %d of %d repeat(s) invalid, not averaged: %s\n",
				report_letter(i), st->name, st->invalid,
				st->repeats, st->invalid_reason ?
				st->invalid_reason : "?");
		}
}

/* A figure table's title and column headings. */
static void report_fig_head(FILE *out, int n, const struct result_doc_key *k,
			    int p99)
{
	char h[64];
	int i;

	fprintf(out, "\n%s (%s): %s%s against concurrency%s\n", k->step,
		k->wl,
		p99 ? "p99 latency (ms)" : k->metric[0] ? k->metric : "rate",
		p99 ? "" : "/s",
		p99 ? "; sd: response-time standard deviation (estimate)" : "");
	fprintf(out, "  %-5s", "conc");
	for (i = 0; i < n; i++) {
		snprintf(h, sizeof(h), "%c %s", report_letter(i),
			 p99 ? "p99 ms" : "per s");
		fputs("  ", out);
		report_cell(out, h, 24, 1);
		if (!p99)
			fprintf(out, "  %6s  %-*s", "err %", n == 1 ? 0 : 7,
				"flag");
		else
			fprintf(out, "  %8s", "sd ms");
		if (i > 0) {
			snprintf(h, sizeof(h), "%c/A", report_letter(i));
			fputs("  ", out);
			report_cell(out, h, 6, 1);
			fputs("  sig", out);
		}
	}
}

/* One figure table: rows = concurrency, per result the figure, and for
 * every result after the first its ratio to the first and significance. */
static void report_fig_table(FILE *out, struct result_doc *rs, int n,
			     const struct result_doc_key *k, int p99)
{
	int conc[64], nc, c, i;
	char b[96];
	double div = p99 ? 1e6 : 1;

	nc = result_doc_concs(rs, n, k->step, conc, 64);
	report_fig_head(out, n, k, p99);
	fputc('\n', out);
	for (c = 0; c < nc; c++) {
		const struct result_doc_wl *base = NULL;

		if (conc[c])
			fprintf(out, "  %-5d", conc[c]);
		else
			fprintf(out, "  %-5s", "-");
		for (i = 0; i < n; i++) {
			const struct result_doc_step *st =
				result_doc_at(&rs[i], k->step, conc[c]);
			const struct result_doc_wl *w =
				st ? result_doc_find_wl(st, k->wl) : NULL;
			const struct result_doc_stat *f =
				w ? (p99 ? &w->p99 : &w->thr) : NULL;

			if (st && st->skipped)
				snprintf(b, sizeof(b), "skipped");
			else if (f)
				report_fmt_stat(b, sizeof(b), f, div);
			else
				snprintf(b, sizeof(b), "-");
			fputs("  ", out);
			report_cell(out, b, 24, 1);
			if (!p99) {
				report_err_cells(out, st, w, n == 1);
			} else {
				if (w && w->sd_ns >= 0)
					report_fmt(b, sizeof(b),
						   w->sd_ns / 1e6);
				else
					snprintf(b, sizeof(b), "-");
				fprintf(out, "  %8s", b);
			}
			if (i == 0) {
				base = w;
				continue;
			}
			if (base && w && f->n && (p99 ? base->p99.median :
						  base->thr.median) != 0) {
				const struct result_doc_stat *bf =
					p99 ? &base->p99 : &base->thr;

				snprintf(b, sizeof(b), "%.3f",
					 f->median / bf->median);
				fputs("  ", out);
				report_cell(out, b, 6, 1);
				fprintf(out, "  %-3s", report_sig_str(
						result_doc_significant(bf, f)));
			} else {
				fprintf(out, "  %6s  %-3s", "-", "-");
			}
		}
		fputc('\n', out);
	}
}

/* One row of the sql ops table: label, then per result its figure f[i]
 * (NULL: absent) and, after the first, the ratio and significance. */
static void report_ops_row(FILE *out, const char *label,
			   const struct result_doc_stat *const *f, int n)
{
	char b[96];
	int i;

	fprintf(out, "  %-18s", label);
	for (i = 0; i < n; i++) {
		if (f[i] && f[i]->n)
			report_fmt_stat(b, sizeof(b), f[i], 1);
		else
			snprintf(b, sizeof(b), "-");
		fputs("  ", out);
		report_cell(out, b, 22, 1);
		if (i == 0)
			continue;
		if (f[0] && f[i] && f[i]->n && f[0]->n && f[0]->median != 0)
			fprintf(out, "  %8.3f  %-3s", f[i]->median / f[0]->median,
				report_sig_str(result_doc_significant(f[0],
								      f[i])));
		else
			fprintf(out, "  %8s  %-3s", "-", "-");
	}
	fputc('\n', out);
}

/* Result r's statistics of sql ops operation name (its first step that
 * has it), or NULL. */
static const struct result_doc_stat *report_op_stat(const struct result_doc *r,
						    const char *name)
{
	int s, o;

	for (s = 0; s < r->nsteps; s++)
		for (o = 0; o < r->steps[s].nops; o++)
			if (strcmp(r->steps[s].op_name[o], name) == 0)
				return &r->steps[s].op_s[o];
	return NULL;
}

/* The Byte.com table: seconds per operation, then the Totals row (each
 * run's own total_s, as the study's sum). */
static void report_ops_table(FILE *out, struct result_doc *rs, int n)
{
	const char *names[RESULT_DOC_MAX_OPS * 4];
	const struct result_doc_stat *f[64];
	int nn, i, s, j;
	char h[64];

	nn = result_doc_op_names(rs, n, names, RESULT_DOC_MAX_OPS * 4);
	if (!nn)
		return;
	n = n < 64 ? n : 64;
	fprintf(out,
		"\nsql ops: seconds per operation (Byte.com table; median ± half 95 %% CI (n))\n  %-18s",
		"operation");
	for (i = 0; i < n; i++) {
		snprintf(h, sizeof(h), "%c seconds", report_letter(i));
		fputs("  ", out);
		report_cell(out, h, 22, 1);
		if (i > 0)
			fprintf(out, "  %6c/A  sig", report_letter(i));
	}
	fputc('\n', out);
	for (j = 0; j < nn; j++) {
		for (i = 0; i < n; i++)
			f[i] = report_op_stat(&rs[i], names[j]);
		report_ops_row(out, names[j], f, n);
	}
	for (i = 0; i < n; i++) {
		f[i] = NULL;
		for (s = 0; s < rs[i].nsteps && !f[i]; s++)
			if (rs[i].steps[s].nops)
				f[i] = &rs[i].steps[s].ops_total;
	}
	report_ops_row(out, "Totals", f, n);
}

static void report_sampler_table(FILE *out, struct result_doc *r, int idx)
{
	int s, k, any = 0;
	char b[32];

	for (s = 0; s < r->nsteps; s++)
		any |= r->steps[s].sm_n > 0;
	if (!any)
		return;
	fprintf(out,
		"\n%c: server sampler, averages per step (Byte.com combined table)\n  %-20s",
		report_letter(idx), "step");
	for (k = 0; k < RESULT_DOC_SM_N; k++)
		fprintf(out, " %10s", result_doc_sm_heads[k]);
	fprintf(out, " %4s\n", "s");
	for (s = 0; s < r->nsteps; s++) {
		const struct result_doc_step *st = &r->steps[s];

		if (!st->sm_n)
			continue;
		fprintf(out, "  %-20s", st->name);
		for (k = 0; k < RESULT_DOC_SM_N; k++) {
			report_fmt(b, sizeof(b), st->sm[k]);
			fprintf(out, " %10s", b);
		}
		fprintf(out, " %4d\n", st->sm_n);
	}
}

/* Several results: their sampler tables side by side, as the study set
 * its two systems' "combined" columns: per step and field, each result's
 * average and its ratio to A's. */
static void report_sampler_compare(FILE *out, struct result_doc *rs, int n)
{
	const char *names[256];
	struct result_doc_sm_cell *cell;
	int nn, i, j, k;
	char b[32];

	nn = result_doc_sm_steps(rs, n, names, 256);
	if (n < 2 || !nn)
		return;
	cell = calloc((size_t)n, sizeof(*cell));
	if (!cell)
		return;
	fprintf(out, "\nserver sampler side by side (Byte.com combined table; ratios against A)\n  %-20s %-10s", "step", "field");
	for (i = 0; i < n; i++) {
		fprintf(out, " %10c", report_letter(i));
		if (i > 0)
			fprintf(out, " %6c/A", report_letter(i));
	}
	fputc('\n', out);
	for (j = 0; j < nn; j++)
		for (k = 0; k < RESULT_DOC_SM_N; k++) {
			fprintf(out, "  %-20s %-10s", k ? "" : names[j],
				result_doc_sm_heads[k]);
			result_doc_sm_compare(rs, n, names[j], k, cell);
			for (i = 0; i < n; i++) {
				if (cell[i].has)
					report_fmt(b, sizeof(b), cell[i].v);
				fprintf(out, " %10s", cell[i].has ? b : "-");
				if (i == 0)
					continue;
				if (cell[i].has_ratio)
					snprintf(b, sizeof(b), "%.3f",
						 cell[i].ratio);
				else
					snprintf(b, sizeof(b), "-");
				fprintf(out, " %8s", b);
			}
			fputc('\n', out);
		}
	free(cell);
}

static void report_probe_table(FILE *out, struct result_doc *rs, int n)
{
	const char *names[256];
	int nn = 0, i, s, j, any = 0;

	for (i = 0; i < n; i++)
		for (s = 0; s < rs[i].nsteps; s++) {
			if (!rs[i].steps[s].pb_seconds)
				continue;
			any = 1;
			for (j = 0; j < nn; j++)
				if (strcmp(names[j], rs[i].steps[s].name) == 0)
					break;
			if (j == nn && nn < 256)
				names[nn++] = rs[i].steps[s].name;
		}
	if (!any)
		return;
	fprintf(out,
		"\nfairness probe: units lost per step (N&K: standard deviation from the ideal, %%)\n  %-20s",
		"step");
	for (i = 0; i < n; i++)
		fprintf(out, "  %c lost %%  %c stddev %%  %c s",
			report_letter(i), report_letter(i), report_letter(i));
	fputc('\n', out);
	for (j = 0; j < nn; j++) {
		fprintf(out, "  %-20s", names[j]);
		for (i = 0; i < n; i++) {
			int k = result_doc_find_step(&rs[i], names[j]);
			const struct result_doc_step *st =
				k >= 0 ? &rs[i].steps[k] : NULL;

			if (st && st->pb_seconds)
				fprintf(out, "  %8.2f  %10.2f  %3d",
					st->pb_lost_pct, st->pb_stddev_pct,
					st->pb_seconds);
			else
				fprintf(out, "  %8s  %10s  %3s", "-", "-",
					"-");
		}
		fputc('\n', out);
	}
}

static void report_hosts(FILE *out, const struct result_doc *r, int idx)
{
	const cJSON *h;

	cJSON_ArrayForEach(h, cJSON_GetObjectItem(cJSON_GetObjectItem(
				r->doc, "environment"), "hosts")) {
		const cJSON *clk = cJSON_GetObjectItem(h, "clock");
		const char *cpu = cJSON_GetStringValue(
			cJSON_GetObjectItem(h, "cpu"));
		const char *ker = cJSON_GetStringValue(
			cJSON_GetObjectItem(h, "kernel"));
		const cJSON *cpus = cJSON_GetObjectItem(h, "cpus");
		const cJSON *mem = cJSON_GetObjectItem(h, "mem_kb");
		const cJSON *off = cJSON_GetObjectItem(clk, "offset_ns");
		char o[32] = "-";

		if (cJSON_IsNumber(off))
			snprintf(o, sizeof(o), "%.1f us",
				 off->valuedouble / 1e3);
		fprintf(out,
			"  %c  %-22s %-18s %s x%d, %.1f GiB, %.40s, clock offset %s%s\n",
			report_letter(idx),
			cJSON_GetStringValue(cJSON_GetObjectItem(h, "id")),
			cJSON_GetStringValue(cJSON_GetObjectItem(h, "role")),
			cpu ? cpu : "?",
			cJSON_IsNumber(cpus) ? cpus->valueint : 0,
			cJSON_IsNumber(mem) ? mem->valuedouble / 1048576 : 0,
			ker ? ker : "?", o,
			cJSON_IsTrue(cJSON_GetObjectItem(h, "lost")) ?
			", LOST" : "");
	}
}

/* Display columns of s (UTF-8: continuation bytes take none). */
static int report_cols(const char *s, size_t len)
{
	size_t i;
	int c = 0;

	for (i = 0; i < len && s[i]; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* The length in bytes of the first line of s wrapped at w columns: up
 * to the last space that fits, else cut at w columns. */
static size_t report_wrap(const char *s, int w)
{
	size_t i, sp = 0;
	int c = 0;

	for (i = 0; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && ++c > w)
			break;
		if (s[i] == ' ')
			sp = i;
	}
	return !s[i] || !sp ? i : sp;
}

/* One line of the system table: the label (with the differs mark) and
 * each cell's next wrapped piece, advancing pos[]; returns whether any
 * cell has more. */
static int report_sys_line(FILE *out, const struct report_sys *t,
			   const struct report_sys_row *r, const char **pos,
			   int lw, int w, int first)
{
	int c, more = 0;
	size_t l;

	fprintf(out, "  %c %-*s", first && r->differs ? '*' : ' ', lw,
		first ? r->label : "");
	if (r->same && t->ncols > 1) {
		/* One value for every host: said once, across the row. */
		const char *s = pos[0] ? pos[0] : "";

		while (*s == ' ')
			s++;
		l = report_wrap(s, t->ncols * (w + 2) - 2);
		fprintf(out, "  %.*s\n", (int)l, s);
		pos[0] = s + l;
		return *pos[0] != 0;
	}
	for (c = 0; c < t->ncols; c++) {
		const char *s = pos[c] ? pos[c] : "";

		while (*s == ' ')
			s++;
		l = report_wrap(s, w);
		fprintf(out, "  %.*s%*s", (int)l, s,
			c + 1 < t->ncols ? w - report_cols(s, l) : 0, "");
		pos[c] = s + l;
		more |= *pos[c] != 0;
	}
	fputc('\n', out);
	return more;
}

/* The hosts' system table, one column per host (report_system.h), cells
 * wrapped to fit about 130 columns; rows that differ between results
 * first, marked '*'. */
static void report_sys_table(FILE *out, struct result_doc *rs, int n)
{
	const char *pos[REPORT_SYS_COLS];
	struct report_sys t;
	int lw = 12, w, c, r;
	char h[64];

	if (report_sys_build(rs, n, &t) != 0 || !t.ncols || !t.nrows) {
		report_sys_free(&t);
		return;
	}
	for (r = 0; r < t.nrows; r++)
		lw = (int)strlen(t.row[r].label) > lw ?
		     (int)strlen(t.row[r].label) : lw;
	w = (130 - lw - 4) / t.ncols - 2;
	w = w < 20 ? 20 : w > 48 ? 48 : w;
	fprintf(out, "\nsystem: one column per host (one value across the row: every host's)%s\n  %*s",
		t.compared ?
		"; * marks a row that differs between the results (listed first)" :
		"", lw + 2, "");
	for (c = 0; c < t.ncols; c++) {
		snprintf(h, sizeof(h), "%c %s", report_letter(t.col[c].run),
			 t.col[c].role);
		fprintf(out, "  %-*.*s", w, w, h);
	}
	fprintf(out, "\n  %*s", lw + 2, "");
	for (c = 0; c < t.ncols; c++)
		fprintf(out, "  %-*.*s", w, w, t.col[c].id);
	fputc('\n', out);
	for (r = 0; r < t.nrows; r++) {
		int first = 1;

		if (t.compared && r == t.ndiffer && r > 0)
			fprintf(out, "    (the same in every result:)\n");
		for (c = 0; c < t.ncols; c++)
			pos[c] = t.row[r].cell[c];
		while (report_sys_line(out, &t, &t.row[r], pos, lw, w, first))
			first = 0;
	}
	report_sys_free(&t);
}

/* "±x %": the half 95 % CI of s as a share of its median. */
static void report_spread(char *b, size_t n, const struct result_doc_stat *s)
{
	if (s->n < 2 || s->median == 0)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "±%.1f %%", (s->hi - s->lo) / 2 /
			 fabs(s->median) * 100);
}

/* One result: a single table, one row per step (and concurrency) and
 * workload: rate, errors, p50 and p99 (median over repeats, n), spread
 * (the rate's half 95 % CI over its median) and the step's flag. */
static void report_one_table(FILE *out, struct result_doc *r)
{
	char rate[64], p50[32], p99[32], sp[32], err[32], mdc[16];
	double e;
	int s, j;

	fprintf(out, "\nsteps: median over repeats (n); spread: half 95 %% CI of the rate, %% of its median; MDC: the smallest change of the rate a run like this can show (docs/report.md)\n  %-22s %-12s %22s  %6s  %9s  %9s  %8s  %7s  %s\n",
		"step", "wl", "rate/s", "err %", "p50 ms", "p99 ms", "spread",
		"MDC", "flag");
	for (s = 0; s < r->nsteps; s++) {
		const struct result_doc_step *st = &r->steps[s];

		if (st->skipped) {
			fprintf(out, "  %-22s skipped: %s\n", st->name,
				st->skipped);
			continue;
		}
		for (j = 0; j < st->nwl; j++) {
			const struct result_doc_wl *w = &st->wl[j];

			report_fmt_stat(rate, sizeof(rate), &w->thr, 1);
			report_fmt(p50, sizeof(p50), w->p50.median / 1e6);
			report_fmt(p99, sizeof(p99), w->p99.median / 1e6);
			report_spread(sp, sizeof(sp), &w->thr);
			fprintf(out, "  %-22s %-12s ", j ? "" : st->name,
				w->name);
			report_cell(out, rate, 22, 1);
			e = result_doc_wl_error_rate(w);
			if (e < 0)
				snprintf(err, sizeof(err), "-");
			else
				snprintf(err, sizeof(err), e > 0 &&
					 e < 0.0001 ? "%.4f" : "%.2f",
					 e * 100);
			fprintf(out, "  %6s  %9s  %9s  ", err,
				w->p50.n ? p50 : "-",
				w->p99.n ? p99 : "-");
			report_cell(out, sp, 8, 1);
			report_mdc_fmt(mdc, sizeof(mdc), &w->thr);
			fprintf(out, "  %7s  %s\n", mdc, j ? "" :
				result_doc_step_flag(st));
		}
	}
	for (s = 0; s < r->nsteps; s++)
		if (r->steps[s].invalid)
			fprintf(out, "  A: %s: %d of %d repeat(s) invalid, not averaged: %s\n",
				r->steps[s].name, r->steps[s].invalid,
				r->steps[s].repeats,
				r->steps[s].invalid_reason ?
				r->steps[s].invalid_reason : "?");
}

int report_text(FILE *out, struct result_doc *rs, int n)
{
	struct result_doc_key k[128];
	int nk, i, j;

	fprintf(out, "benchboot report: %d result%s%s\n", n, n > 1 ? "s" : "",
		n > 1 ? " (ratios against A; sig: 95 % CIs do not overlap)" :
		"");
	for (i = 0; i < n; i++)
		fprintf(out, "  %c  %s  suite %s v%s  benchboot %s  %s  (%s)\n",
			report_letter(i), rs[i].id, rs[i].suite,
			rs[i].suite_version,
			rs[i].tool_version ? rs[i].tool_version : "?",
			rs[i].created ? rs[i].created : "?", rs[i].file);
	for (i = 0; i < n; i++)
		if (rs[i].time_scale != 1)
			fprintf(out, "  %c  TIME-SCALED x%g: every warm-up, duration and cool-down times %g; not comparable with a full-length run\n",
				report_letter(i), rs[i].time_scale,
				rs[i].time_scale);
	fprintf(out, "\nhosts\n");
	for (i = 0; i < n; i++)
		report_hosts(out, &rs[i], i);
	report_sys_table(out, rs, n);
	nk = n == 1 ? 0 : result_doc_keys(rs, n, k, 128);
	if (n == 1)
		report_one_table(out, &rs[0]);
	for (j = 0; j < nk; j++) {
		report_fig_table(out, rs, n, &k[j], 0);
		report_invalid_notes(out, rs, n, &k[j]);
		report_fig_table(out, rs, n, &k[j], 1);
	}
	for (i = 0; i < n && n > 1; i++)
		for (j = 0; j < rs[i].nsteps; j++)
			if (rs[i].steps[j].skipped)
				fprintf(out, "%c: %s skipped: %s\n",
					report_letter(i), rs[i].steps[j].name,
					rs[i].steps[j].skipped);
	report_ops_table(out, rs, n);
	for (i = 0; i < n; i++)
		report_sampler_table(out, &rs[i], i);
	report_sampler_compare(out, rs, n);
	report_probe_table(out, rs, n);
	fflush(out);
	return ferror(out) ? -EIO : 0;
}
