/* lib/stop.c: the stop request (lib/stop.h): a flag and the handler that
 * sets it. */
#include <errno.h>
#include <string.h>

#include "lib/stop.h"

volatile sig_atomic_t stop_requested;

static void stop_on_signal(int sig)
{
	stop_requested = sig;
}

int stop_on_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = stop_on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) != 0 ||
	    sigaction(SIGTERM, &sa, NULL) != 0)
		return -errno;
	return 0;
}
