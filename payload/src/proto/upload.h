/* proto/upload.h: the upload's wire contract, the one place both sides
 * read it: the controller's spool sends a result document to a collector
 * as an HTTP POST (or PUT .../ID.json) of application/json with these
 * headers, and the collector checks them (collector/collect_http.h). */
#ifndef BB_UPLOAD_H
#define BB_UPLOAD_H

/* The document's id, which must equal its "id" field: the collector
 * stores a result under it, once (a second upload of it is answered as
 * already stored). */
#define UPLOAD_ID_HEADER "X-Benchboot-Result-Id"

/* The collector's token, "Authorization: Bearer TOKEN"; the viewer's
 * token opens GET alone, as the password of Basic credentials. */
#define UPLOAD_AUTH_HEADER "Authorization"
#define UPLOAD_BEARER "Bearer "

/* The longest id either side accepts (ids are file names in the
 * collector's store). */
#define UPLOAD_ID_MAX 128

#endif
