/* dbconn/dbconn.c: the blocking connect both the SQL workloads and the
 * result database use (dbconn/dbconn.h). */
#include <errno.h>
#include <stdint.h>

#include <mysql.h>

#include "dbconn/dbconn.h"
#include "lib/util.h"

void dbconn_options(MYSQL *m, const struct dbconn_target *tg)
{
	unsigned int to = tg->timeout_s;

	mysql_optionsv(m, MYSQL_OPT_CONNECT_TIMEOUT, &to);
	mysql_optionsv(m, MYSQL_OPT_READ_TIMEOUT, &to);
	mysql_optionsv(m, MYSQL_OPT_WRITE_TIMEOUT, &to);
}

struct st_mysql *dbconn_connect(const struct dbconn_target *tg, char *err,
				size_t errlen, unsigned *errnum,
				uint64_t *elapsed_ns)
{
	uint64_t t0 = util_mono_ns();
	MYSQL *m = mysql_init(NULL);

	*errnum = 0;
	*elapsed_ns = 0;
	if (!m) {
		util_fail(err, errlen, -ENOMEM, "mysql_init: out of memory");
		return NULL;
	}
	dbconn_options(m, tg);
	if (!mysql_real_connect(m, tg->host, tg->user, tg->password, tg->db,
				tg->port, tg->socket, 0)) {
		util_fail(err, errlen, -EIO, "%s", mysql_error(m));
		*errnum = mysql_errno(m);
		*elapsed_ns = util_mono_ns() - t0;
		mysql_close(m);
		return NULL;
	}
	return m;
}
