/* lib/wake.c: an absolute sleep that wakes at real-time priority and
 * leaves it at once (wake.h says why). */
#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "lib/wake.h"

/* System calls, not pthread_setschedparam(): between one sleeper's clock
 * read and the next one's turn there is then one call, where musl's makes
 * three (it blocks signals around it).  Thread 0 is the calling thread;
 * the policy read back carries SCHED_RESET_ON_FORK when set. */
int wake_at(int64_t real_ns, int64_t *woke)
{
	struct sched_param old = { 0 }, rt = { .sched_priority = 1 };
	struct timespec ts = {
		.tv_sec = real_ns / 1000000000,
		.tv_nsec = real_ns % 1000000000,
	};
	long pol = syscall(SYS_sched_getscheduler, 0);
	int raised = 0;

	if (pol == SCHED_OTHER)
		raised = syscall(SYS_sched_setscheduler, 0,
				 SCHED_FIFO | SCHED_RESET_ON_FORK, &rt) == 0;
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
	*woke = (int64_t)util_real_ns();
	if (raised &&
	    syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &old) != 0)
		return -EPERM;
	return 0;
}
