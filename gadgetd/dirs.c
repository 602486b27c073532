#include "dirs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void dirs_parent(const char *file, char *buf, size_t size)
{
	const char *slash = strrchr(file, '/');

	if (!slash)
		snprintf(buf, size, ".");
	else if (slash == file)
		snprintf(buf, size, "/");
	else
		snprintf(buf, size, "%.*s", (int)(slash - file), file);
}

/* One component: made with mode (chmod after mkdir, as the umask may
 * have taken bits), or checked to be a folder already. */
static int dirs_one(const char *path, mode_t mode, char *err, size_t size)
{
	struct stat st;
	int r;

	if (mkdir(path, mode) == 0) {
		if (chmod(path, mode) == 0)
			return 0;
		r = -errno;
		snprintf(err, size, "cannot set mode %04o on %s: %s", (unsigned)mode,
			 path, strerror(-r));
		return r;
	}
	r = -errno;
	if (r == -EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	if (r == -EEXIST)
		r = -ENOTDIR;
	snprintf(err, size, "cannot create %s: %s", path, strerror(-r));
	return r;
}

int dirs_make(const char *path, mode_t mode, char *err, size_t err_size)
{
	char dir[PATH_MAX];
	char *p;
	int r;

	if (!path[0] || snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
		snprintf(err, err_size, "cannot create \"%s\": %s", path,
			 strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	/* Existing parents are left alone, even links such as /var/run. */
	for (p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		r = dirs_one(dir, 0755, err, err_size);
		*p = '/';
		if (r < 0)
			return r;
	}
	return dirs_one(dir, mode, err, err_size);
}
