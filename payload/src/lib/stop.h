/* lib/stop.h: the one stop request of a process: SIGINT and SIGTERM set
 * it, every long-running command's loops poll it, end, and still report
 * what they measured. */
#ifndef BB_STOP_H
#define BB_STOP_H

#include <signal.h>

/* 0 while the process should go on; else the number of the signal that
 * asked it to stop, or any non-zero value a command stores itself to stop
 * its own threads.  One per process: a process runs one command. */
extern volatile sig_atomic_t stop_requested;

/* Makes SIGINT and SIGTERM set stop_requested instead of ending the
 * process.  Without SA_RESTART: a blocking call they interrupt returns
 * EINTR, so the loop around it looks at the flag.  Returns 0, or a
 * negative errno from sigaction(). */
int stop_on_signals(void);

#endif
