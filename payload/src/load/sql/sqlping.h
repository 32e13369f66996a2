/* load/sql/sqlping.h: `benchboot sql-ping`, a one-shot MariaDB/MySQL connection
 * check (readiness probe for the server role; proof that the static
 * mariadb-connector-c works). */
#ifndef BB_SQLPING_H
#define BB_SQLPING_H

/* `benchboot sql-ping [--host H] [--port P] [--socket PATH] [--user U]
 * [--password PW] [--db DB] [--timeout S] [--drop-tables]`: connects,
 * runs SELECT VERSION() and prints the answer; with --drop-tables instead
 * drops the tables the sql workloads leave (bb_* in the bench*
 * databases: the server reset between steps) and prints how many.
 * Returns 0, 1 when the server cannot be reached or refuses (or a drop
 * failed), 2 on a usage error. */
int sqlping_main(int argc, char **argv);

#endif
