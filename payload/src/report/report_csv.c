/* report/report_csv.c: `benchboot report --csv`: one row per (result,
 * workload, step, concurrency), every figure at full precision. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "report/report_csv.h"
#include "report/report_mdc.h"
#include "result/result_doc.h"

/* A CSV field, quoted when it holds a separator, quote or line break.
 * A field a spreadsheet would read as a formula (it starts with = + - @,
 * a tab or a CR: OWASP's CSV injection list) gets a leading ' and is
 * quoted, so a hostile step name or id is shown, never evaluated.  Only
 * strings from the result come here; numbers are printed directly. */
static void report_csv_str(FILE *out, const char *s)
{
	const char *c;
	int formula;

	if (!s)
		s = "";
	formula = s[0] && strchr("=+-@\t\r", s[0]) != NULL;
	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	if (formula)
		fputc('\'', out);
	for (c = s; *c; c++) {
		if (*c == '"')
			fputc('"', out);
		fputc(*c, out);
	}
	fputc('"', out);
}

static void report_csv_stat(FILE *out, const struct result_doc_stat *s)
{
	if (s->n)
		fprintf(out, ",%d,%.17g,%.17g,%.17g,%.17g", s->n, s->median,
			s->mean, s->lo, s->hi);
	else
		fputs(",,,,,", out);
}

/* One row; w NULL for a step with no workload statistics. */
/* The columns added after the probe's: error rate, invalid repeats,
 * the flag, the response-time standard deviation, the throughput's
 * minimum detectable change; then the line end. */
static void report_csv_tail(FILE *out, const struct result_doc_step *st,
			    const struct result_doc_wl *w)
{
	double e = w ? result_doc_wl_error_rate(w) : -1;

	if (e >= 0)
		fprintf(out, ",%.17g,%.17g,%.17g", w->succ, w->fail, e);
	else
		fputs(",,,", out);
	fprintf(out, ",%d,%s", st->invalid, st->skipped ? "" :
		result_doc_step_flag(st));
	if (w && w->sd_ns >= 0)
		fprintf(out, ",%.17g", w->sd_ns);
	else
		fputc(',', out);
	if (w && report_mdc_pct(&w->thr) >= 0)
		fprintf(out, ",%.17g\n", report_mdc_pct(&w->thr));
	else
		fputs(",\n", out);
}

static void report_csv_row(FILE *out, const struct result_doc *r,
			   const struct result_doc_step *st,
			   const struct result_doc_wl *w)
{
	int k;

	report_csv_str(out, r->id);
	fputc(',', out);
	report_csv_str(out, r->file);
	fputc(',', out);
	report_csv_str(out, r->suite);
	fputc(',', out);
	report_csv_str(out, r->suite_version);
	fputc(',', out);
	report_csv_str(out, w ? w->name : "");
	fputc(',', out);
	report_csv_str(out, st->step);
	fputc(',', out);
	report_csv_str(out, st->name);
	fprintf(out, ",%d,%d,%d,", st->conc, st->repeats, st->complete);
	report_csv_str(out, st->skipped);
	fputc(',', out);
	report_csv_str(out, w ? w->metric : "");
	if (w) {
		report_csv_stat(out, &w->thr);
		report_csv_stat(out, &w->p50);
		report_csv_stat(out, &w->p99);
		fprintf(out, ",%.17g", w->errors);
	} else {
		fputs(",,,,,,,,,,,,,,,,", out);
	}
	fprintf(out, ",%d", st->sm_n);
	for (k = 0; k < RESULT_DOC_SM_N; k++)
		if (st->sm_n)
			fprintf(out, ",%.17g", st->sm[k]);
		else
			fputc(',', out);
	if (st->pb_seconds)
		fprintf(out, ",%d,%.17g,%.17g", st->pb_seconds,
			st->pb_lost_pct, st->pb_stddev_pct);
	else
		fputs(",0,,", out);
	report_csv_tail(out, st, w);
}

int report_csv(FILE *out, struct result_doc *rs, int n)
{
	static const char *const sh[] = { "thr", "p50_ns", "p99_ns" };
	int i, s, w, k;

	fputs("result,file,suite,suite_version,workload,step,step_name,concurrency,repeats,complete_repeats,skipped,metric",
	      out);
	for (k = 0; k < 3; k++)
		fprintf(out, ",%s_n,%s_median,%s_mean,%s_ci95_lo,%s_ci95_hi",
			sh[k], sh[k], sh[k], sh[k], sh[k]);
	fputs(",errors,sampler_intervals", out);
	for (k = 0; k < RESULT_DOC_SM_N; k++)
		fprintf(out, ",%s", result_doc_sm_fields[k]);
	fputs(",probe_seconds,probe_lost_pct,probe_stddev_pct,successes,failures,error_rate,invalid_repeats,flag,stddev_ns,thr_mdc_pct\n", out);
	for (i = 0; i < n; i++)
		for (s = 0; s < rs[i].nsteps; s++) {
			const struct result_doc_step *st = &rs[i].steps[s];

			if (!st->nwl)
				report_csv_row(out, &rs[i], st, NULL);
			for (w = 0; w < st->nwl; w++)
				report_csv_row(out, &rs[i], st, &st->wl[w]);
		}
	fflush(out);
	return ferror(out) ? -EIO : 0;
}
