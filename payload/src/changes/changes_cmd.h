/* changes/changes_cmd.h: `benchboot changes`: the change points of a
 * lab's history, from result files (a directory, a list) or from the
 * collector's database, as text or JSON (docs/collect.md). */
#ifndef BB_CHANGES_CMD_H
#define BB_CHANGES_CMD_H

/* The command.  Exit status: 0 (points printed, maybe none), 1 (the
 * database failed, no document could be read), 2 (usage). */
int changes_main(int argc, char **argv);

#endif
