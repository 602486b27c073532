#include "dirs.h"
#include "fsutil.h"

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

int dirs_make(const char *path, mode_t mode, char *err, size_t err_size)
{
	/* Existing parents are left alone, even links such as /var/run. */
	const struct fsutil_mkdir o = {
		.mode = mode,
		.parent_mode = 0755,
		.uid = (uid_t)-1,
		.gid = (gid_t)-1,
	};
	struct fsutil_mkdir_result res;
	int r;

	if (!path[0] || strlen(path) >= PATH_MAX) {
		snprintf(err, err_size, "cannot create \"%s\": %s", path,
			 strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	r = fsutil_mkdir_p(path, &o, &res);
	if (r >= 0) {
		close(r);
		return 0;
	}
	if (res.step == FSUTIL_MKDIR_MODE)
		snprintf(err, err_size, "cannot set mode %04o on %.*s: %s",
			 (unsigned)(res.len == strlen(path) ? mode : 0755),
			 (int)res.len, path, strerror(-r));
	else
		snprintf(err, err_size, "cannot create %.*s: %s", (int)res.len,
			 path, strerror(-r));
	return r;
}
