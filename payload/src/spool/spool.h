/* spool/spool.h: results written locally first, then uploaded from a
 * spool that survives restarts; an upload is idempotent by result id. */
#ifndef BB_SPOOL_H
#define BB_SPOOL_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

/* Layout under dir: results/ID.json (every result, kept), pending/ID.json
 * (a hard link while it still has to be uploaded), rejected/ID.json and
 * rejected/ID.answer (a result the receiver refused for good, and what it
 * said). */

/* Writes doc (len bytes) as dir/results/ID.json atomically (temporary
 * file, fsync, rename, directory fsync) and, when queue is set, links it
 * into dir/pending/.  Creates the directories.  Returns 0 or a negative
 * errno with a message naming the path in err. */
int spool_put(const char *dir, const char *id, const char *doc, size_t len,
	      int queue, char *err, size_t errlen);

/* Where results go and how the receiver is trusted.  Only url is
 * required; the strings are borrowed (the caller keeps them alive). */
struct spool_dest {
	const char *url;	/* as spool_flush takes it */
	const char *token;	/* "Authorization: Bearer TOKEN", or NULL */
	/* https:// only.  ca: a PEM file of the CA certificates (or the
	 * collector's self-signed certificate) the server's certificate
	 * must chain to, its name matching the URL's host; NULL: libcurl's
	 * built-in bundle, which the image does not have.  pin:
	 * "sha256//BASE64" (several joined by ';'), the SHA-256 of the
	 * server's public key (SubjectPublicKeyInfo, as curl --pinnedpubkey
	 * and `openssl pkey -pubin -outform der | openssl dgst -sha256
	 * -binary | base64` give it).  A pin alone trusts exactly that key
	 * and nothing else (no CA, no name check: a self-signed collector);
	 * with ca both must hold. */
	const char *ca;
	const char *pin;
	long timeout_s;		/* one attempt; <= 0: 30 s */
};

/* Checks d before any upload: a pin not of the form sha256//BASE64, a CA
 * file that cannot be read, or ca/pin on a URL that is not https://.
 * Returns 0 or -EINVAL with the reason in err. */
int spool_dest_check(const struct spool_dest *d, char *err, size_t errlen);

/* Uploads one file (path, result id) to d.  Returns 0 when the receiver
 * holds it (HTTP 200/201/204, or the file already there), -EINVAL when d
 * fails spool_dest_check, -EPERM when the receiver refused it for good
 * (an HTTP 4xx other than 408 and 429: a bad token, a conflicting or
 * oversized document; sending it again cannot help), -EIO with the reason
 * in err otherwise (worth another try: no answer, 5xx, 408, 429; a
 * certificate or pin mismatch names it). */
int spool_upload_to(const struct spool_dest *d, const char *id,
		    const char *path, char *err, size_t errlen);

/* spool_flush() to d: every dir/pending/ID.json once, oldest first, each
 * delivered one leaving pending/, each refused for good (-EPERM above)
 * moved to rejected/ beside an ID.answer file with the receiver's answer.
 * Returns how many remain pending, or a negative errno (spool unreadable,
 * d invalid: nothing tried).  err describes the last failure. */
int spool_flush_to(const char *dir, const struct spool_dest *d, char *err,
		   size_t errlen);

/* Uploads one file to url (see spool_flush) with an optional bearer
 * token: spool_upload_to() with no ca and no pin.  Returns 0 when the
 * receiver holds it (HTTP 200/201/204, or the file already there), -EIO
 * with the reason in err otherwise. */
int spool_upload(const char *url, const char *token, const char *id,
		 const char *path, long timeout_s, char *err, size_t errlen);

/* spool_flush_to() with no ca and no pin.
 * Tries to upload every dir/pending/ID.json once, oldest first; each one
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

/* Writes doc (len bytes) as dir/partial/ID.json atomically: the result
 * so far, after every repeat, so a controller that dies loses at most the
 * repeat in progress.  Returns 0 or a negative errno (err says where). */
int spool_checkpoint(const char *dir, const char *id, const char *doc,
		     size_t len, char *err, size_t errlen);

/* Removes dir/partial/ID.json (the whole result is spooled now). */
void spool_checkpoint_done(const char *dir, const char *id);

/* Spools every dir/partial/ID.json a controller left behind (it died),
 * but keep's (a controller resuming that run; NULL for none): marked
 * with "interrupted": why, queued for upload like any result, then
 * removed from partial/.  Returns how many, or a negative errno. */
int spool_recover(const char *dir, const char *keep, const char *why,
		  char *err, size_t errlen);

/* The checkpoint dir/partial/ID.json: its document in *doc (caller
 * owns) and when it was last written in *mtime.  Returns 0; -ENOENT when
 * there is none; -EINVAL when it is not a JSON object (err says where);
 * or a negative errno. */
int spool_checkpoint_load(const char *dir, const char *id, cJSON **doc,
			  time_t *mtime, char *err, size_t errlen);

/* Number of results in dir/rejected/ (0 when none). */
int spool_rejected(const char *dir);

#endif
