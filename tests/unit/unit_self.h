/*
 * How a unit test finds itself: to run itself again as a worker
 * (test_supervisor, test_sup_argv), $UNIT_SELF where /proc/self/exe
 * cannot be exec'd (qemu-user without binfmt_misc:
 * tests/vm/check-cross.sh); and the folder it was built in, where the
 * files built beside it are (test_loader, test_describe).
 */
#ifndef GADGETD_UNIT_SELF_H
#define GADGETD_UNIT_SELF_H

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline char *unit_self(void)
{
	char *e = getenv("UNIT_SELF");

	return e && e[0] ? e : "/proc/self/exe";
}

/* The test binary's folder into dir: argv[0]'s (check-cross runs a test
 * through the target's ld.so under qemu-user, where /proc/self/exe
 * names the loader), or /proc/self/exe's when argv[0] has no folder.
 * -1 when neither can be read. */
static inline int unit_self_dir(int argc, char **argv, char *dir, size_t size)
{
	char exe[PATH_MAX];

	if (argc > 0 && strchr(argv[0], '/')) {
		if (!realpath(argv[0], exe))
			return -1;
	} else {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n < 0)
			return -1;
		exe[n] = '\0';
	}
	snprintf(dir, size, "%s", dirname(exe));
	return 0;
}

#endif
