/* controller/runner_result.h: the controller's result document
 * (docs/result-schema.md): its id (a new one, or a resumed run's), head
 * and tail, the checkpoint after every repeat, writing and uploading. */
#ifndef BB_RUNNER_RESULT_H
#define BB_RUNNER_RESULT_H

#include <stddef.h>

#include "controller/runner_peers.h"

/* The run's id into id (len bytes): --run-id's, resuming its checkpoint
 * (r->resume) when the suite and the clients are the same
 * (result_resume_match(); r->resumed is then set); when they are not,
 * the checkpoint is spooled as an interrupted partial result and this
 * run gets an id of its own; without --run-id a new id. */
void runner_result_resume_id(struct runner *r, char *id, size_t len);

/* A resumed run's "resumed" object in r->doc (when the checkpoint was
 * written, the gap, and r->resumed, which the document then owns), and
 * its event.  Nothing for a run that is not resumed. */
void runner_result_resume_note(struct runner *r);

/* The document's head into r->doc: schema, id, created, tool, controller,
 * lab, suite. */
void runner_result_head(struct runner *r, const char *id);

/* The result so far, marked partial, written atomically to the spool's
 * partial/ (after every repeat).  A failure is logged, never fatal. */
void runner_result_checkpoint(struct runner *r);

/* The document's tail: environment, skew, the controller's own usage and
 * the events (r->events moves into r->doc). */
void runner_result_tail(struct runner *r);

/* Writes r->doc to the spool as result id, tells every agent the suite is
 * over and uploads (retrying until the upload deadline).  Returns the
 * exit status runner_main() documents: 0, 1, 3, 4 or 5. */
int runner_result_deliver(struct runner *r, const char *id);

#endif
