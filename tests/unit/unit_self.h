/*
 * How a unit test runs itself again as a worker (test_supervisor,
 * test_sup_argv): $UNIT_SELF where /proc/self/exe cannot be exec'd
 * (qemu-user without binfmt_misc: tests/vm/check-cross.sh).
 */
#ifndef GADGETD_UNIT_SELF_H
#define GADGETD_UNIT_SELF_H

#include <stdlib.h>

static inline char *unit_self(void)
{
	char *e = getenv("UNIT_SELF");

	return e && e[0] ? e : "/proc/self/exe";
}

#endif
