/* core/version_cmd.c: `benchboot version` (core/version_cmd.h). */
#include <stdio.h>

#include "core/version_cmd.h"
#include "lib/version.h"

int version_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	version_print(stdout);
	return 0;
}
