/* core/main.c: the multi-call entry point.  `benchboot SUBCOMMAND ...` (or a
 * symlink named after the subcommand) runs that command from cmd.h's
 * table. */
#include "core/cmd.h"

int main(int argc, char **argv)
{
	return cmd_dispatch(argc, argv);
}
