/* lib/wake.c: an absolute sleep that wakes at real-time priority and
 * leaves it at once (wake.h says why). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "lib/util.h"
#include "lib/wake.h"

int wake_at(int64_t real_ns, int64_t *woke)
{
	struct sched_param old, rt = { .sched_priority = 1 };
	struct timespec ts = {
		.tv_sec = real_ns / 1000000000,
		.tv_nsec = real_ns % 1000000000,
	};
	int pol, raised = 0;

	if (pthread_getschedparam(pthread_self(), &pol, &old) == 0 &&
	    pol == SCHED_OTHER)
		raised = pthread_setschedparam(pthread_self(),
					       SCHED_FIFO | SCHED_RESET_ON_FORK,
					       &rt) == 0;
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
	*woke = (int64_t)util_real_ns();
	if (raised && pthread_setschedparam(pthread_self(), pol, &old) != 0)
		return -EPERM;
	return 0;
}
