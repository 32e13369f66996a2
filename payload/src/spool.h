/* spool.h: results written locally first, then uploaded from a spool that
 * survives restarts; an upload is idempotent by result id. */
#ifndef BB_SPOOL_H
#define BB_SPOOL_H

#include <stddef.h>

/* Layout under dir: results/ID.json (every result, kept), pending/ID.json
 * (a hard link while it still has to be uploaded). */

/* Writes doc (len bytes) as dir/results/ID.json atomically (temporary
 * file, fsync, rename, directory fsync) and, when queue is set, links it
 * into dir/pending/.  Creates the directories.  Returns 0 or a negative
 * errno with a message naming the path in err. */
int spool_put(const char *dir, const char *id, const char *doc, size_t len,
	      int queue, char *err, size_t errlen);

/* Uploads one file to url (see spool_flush) with an optional bearer
 * token.  Returns 0 when the receiver holds it (HTTP 200/201/204, or the
 * file already there), -EIO with the reason in err otherwise. */
int spool_upload(const char *url, const char *token, const char *id,
		 const char *path, long timeout_s, char *err, size_t errlen);

/* Tries to upload every dir/pending/ID.json once, oldest first; each one
 * that succeeds leaves pending/.  url is http(s)://HOST/PATH/ (trailing
 * slash: PUT PATH/ID.json), http(s)://HOST/PATH (POST, id in the body and
 * an X-Benchboot-Result-Id header), or file:///DIR (copied atomically to
 * DIR/ID.json, e.g. the USB stick's BBRESULTS partition).  Returns how
 * many remain pending (0 = all delivered), or a negative errno when the
 * spool cannot be read.  The last failure is described in err. */
int spool_flush(const char *dir, const char *url, const char *token,
		long timeout_s, char *err, size_t errlen);

/* Number of results waiting in dir/pending/ (0 when none or no spool). */
int spool_pending(const char *dir);

#endif
