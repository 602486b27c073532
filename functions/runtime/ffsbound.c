/* ffsbound: is a FunctionFS instance in a bound gadget (ffsbound.h). */
#include "ffsbound.h"
#include "log.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The FunctionFS device name mounted on dir (mountinfo's source field). */
static int ffsbound_dev(const char *dir, char *dev, size_t size)
{
	char real[PATH_MAX], line[PATH_MAX + 512], mnt[PATH_MAX], type[64], src[256];
	FILE *f;
	int r = -ENOENT;

	if (!realpath(dir, real) || !(f = fopen("/proc/self/mountinfo", "re")))
		return -errno;
	while (r < 0 && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(sep, " - %63s %255s", type, src) != 2)
			continue;
		if (!strcmp(mnt, real) && !strcmp(type, "functionfs"))
			r = snprintf(dev, size, "%s", src) < (int)size ? 0 : -ENAMETOOLONG;
	}
	fclose(f);
	return r;
}

/* Is ffs.<dev> linked into a configuration of a gadget bound to a UDC? */
static bool ffsbound_in_gadget(const char *dev, char *gadget, size_t size)
{
	char want[300], target[PATH_MAX], path[PATH_MAX + 8], udc[64] = "";
	bool bound = false;
	glob_t g;
	size_t i;

	snprintf(want, sizeof(want), "/functions/ffs.%s", dev);
	if (glob("/sys/kernel/config/usb_gadget/*/configs/*/*", GLOB_NOSORT,
		 NULL, &g))
		return false;
	for (i = 0; i < g.gl_pathc && !bound; i++) {
		ssize_t n = readlink(g.gl_pathv[i], target, sizeof(target) - 1);
		FILE *f;
		char *cut;

		if (n <= 0)
			continue;
		target[n] = '\0';
		cut = strstr(g.gl_pathv[i], "/configs/");
		if (n < (ssize_t)strlen(want) ||
		    strcmp(target + n - strlen(want), want) || !cut)
			continue;
		snprintf(gadget, size, "%.*s", (int)(cut - g.gl_pathv[i]),
			 g.gl_pathv[i]);
		snprintf(path, sizeof(path), "%s/UDC", gadget);
		if ((f = fopen(path, "re"))) {
			bound = fgets(udc, sizeof(udc), f) && udc[0] != '\n';
			fclose(f);
		}
	}
	globfree(&g);
	return bound;
}

/* The kernel's deadlock this avoids: ffsbound.h. */
int ffsbound_refuse(const char *dir)
{
	char dev[256], gadget[PATH_MAX];

	if (ffsbound_dev(dir, dev, sizeof(dev)) < 0)
		return 0;
	if (!ffsbound_in_gadget(dev, gadget, sizeof(gadget)))
		return 0;
	log_warnx("%s (ffs.%s) is in %s, which is bound to a UDC; unbind it "
		  "before starting a worker (opening ep0 now would hang in the "
		  "kernel)", dir, dev, gadget);
	return -EBUSY;
}
