/*
 * plugin_spawn() for the unit tests and fuzz targets that reach adb's
 * services: the real spawner (functions/spawner.c), started once per
 * process, as the worker starts it.
 */
#include <sys/types.h>

#include "plugin.h"
#include "spawner.h"

int plugin_spawn(struct plugin *p, const struct spawner_cmd *c,
		 struct spawner_child *out)
{
	static int fd = -1;
	pid_t pid;
	int r;

	if (fd < 0 && (r = spawner_start(&fd, &pid)) < 0)
		return r;
	return spawner_spawn(fd, c, out);
}
