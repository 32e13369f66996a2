/* fuzz_proc_parse.c: libFuzzer target for the Linux sampler's /proc
 * parsers, which `sample --replay` points at files anyone can write.  The
 * input is split at 0x01 bytes into proc/stat, meminfo, vmstat, loadavg,
 * net/dev and two proc/PID/stat files of a scratch root; a reading must
 * succeed or fail with a message, and what it fills must stay in bounds. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysmon/sample_os.h"

static char root[64];
static const char *const files[] = {
	"proc/stat", "proc/meminfo", "proc/vmstat", "proc/loadavg",
	"proc/net/dev", "proc/7/stat", "proc/42/stat",
};

static void fuzz_write(const char *rel, const uint8_t *p, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f)
		abort();
	if (n && fwrite(p, 1, n, f) != n)
		abort();
	fclose(f);
}

/* Removes the scratch root when the fuzzer exits. */
static void fuzz_cleanup(void)
{
	static const char *const dirs[] = {
		"proc/7", "proc/42", "proc/net", "proc", "",
	};
	char path[128];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		unlink(path);
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		rmdir(path);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static const char *const procs[] = { "yes", "sleep" };
	static struct sample_raw r;
	struct sample_os *os;
	char err[256], path[128];
	size_t i, start = 0, nf = 0;
	int rc, j, k;

	if (!root[0]) {
		/* tmpfs when there is one: files are rewritten every run */
		strcpy(root, access("/dev/shm", W_OK) == 0 ?
		       "/dev/shm/fuzz_proc_parse.XXXXXX" :
		       "/tmp/fuzz_proc_parse.XXXXXX");
		if (!mkdtemp(root))
			abort();
		atexit(fuzz_cleanup);
	}
	snprintf(path, sizeof(path), "%s/proc", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/net", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/7", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/42", root);
	mkdir(path, 0755);
	for (i = 0; i <= len && nf < sizeof(files) / sizeof(files[0]); i++) {
		if (i == len || data[i] == 0x01) {
			fuzz_write(files[nf++], data + start, i - start);
			start = i + 1;
		}
	}
	for (; nf < sizeof(files) / sizeof(files[0]); nf++)
		fuzz_write(files[nf], NULL, 0);

	if (sample_os_open(&os, root, procs, 2, err, sizeof(err)) != 0)
		abort();
	memset(&r, 0, sizeof(r));
	err[0] = '\0';
	rc = sample_os_read(os, &r, err, sizeof(err));
	if (rc > 0 || (rc < 0 && !err[0]))
		abort();	/* a failure always says why */
	if (r.nifaces < 0 || r.nifaces > SAMPLE_MAX_IFACES)
		abort();
	for (j = 0; j < r.nifaces; j++)
		if (!memchr(r.ifaces[j].name, 0, SAMPLE_IFNAME_LEN))
			abort();
	for (j = 0; rc == 0 && j < r.nprocs; j++) {
		const struct sample_pid *p = r.procs[j].pids;

		if (r.procs[j].npids < 0 || r.procs[j].npids > 2)
			abort();
		for (k = 1; k < r.procs[j].npids; k++)
			if (p[k - 1].pid >= p[k].pid)
				abort();	/* sorted, no duplicates */
	}
	sample_os_close(os);
	return 0;
}
