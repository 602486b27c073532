#include "state.h"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int state_load(const char *path, char *profile, size_t psize, char *set,
	       size_t ssize)
{
	char line[512];
	FILE *f = fopen(path, "re");
	int found = 0;

	if (!f)
		return -errno;
	profile[0] = set[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "profile=", 8)) {
			/* A name cut short would be another name. */
			if (snprintf(profile, psize, "%s", line + 8) >= (int)psize)
				found |= 4;
			found |= 1;
		} else if (!strncmp(line, "set=", 4)) {
			snprintf(set, ssize, "%s", line + 4);
			found |= 2;
		}
	}
	fclose(f);
	/* The file is ours, but a name from it must not reach a path unchecked. */
	if (found != 3 || !config_profile_name_ok(profile))
		return -EINVAL;
	return found == 3 ? 0 : -EINVAL;
}

static int state_mkdirs(const char *path)
{
	char dir[PATH_MAX];
	char *p;

	snprintf(dir, sizeof(dir), "%s", path);
	for (p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

int state_save(const char *path, const char *profile, const char *set)
{
	char tmp[PATH_MAX];
	FILE *f;
	int r;

	if ((r = state_mkdirs(path)) < 0)
		return r;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "profile=%s\nset=%s\n", profile, set);
	if (fflush(f) != 0 || fsync(fileno(f)) < 0) {
		r = -errno;
		fclose(f);
		unlink(tmp);
		return r;
	}
	fclose(f);
	if (rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
		return r;
	}
	return 0;
}
