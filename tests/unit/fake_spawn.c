/*
 * plugin_spawn() for the unit tests and fuzz targets that reach adb's
 * services: the real spawner (functions/spawner.c), started as the worker
 * starts it, once, and again after fake_spawn_config().
 */
#include "fake_spawn.h"

#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plugin.h"
#include "spawner.h"

static char fake_shell[256] = "/bin/sh", fake_reboot[256];
static int fake_fd = -1;
static pid_t fake_pid;

void fake_spawn_config(const char *shell, const char *reboot)
{
	snprintf(fake_shell, sizeof(fake_shell), "%s", shell);
	snprintf(fake_reboot, sizeof(fake_reboot), "%s", reboot ? reboot : "");
	if (fake_fd >= 0) {
		close(fake_fd);
		waitpid(fake_pid, NULL, 0);
		fake_fd = -1;
	}
}

int plugin_spawn(struct plugin *p, const struct spawner_cmd *c,
		 struct spawner_child *out)
{
	struct spawner_cfg cfg = {
		.shell = fake_shell,
		.reboot = fake_reboot[0] ? fake_reboot : NULL,
	};
	int r;

	if (fake_fd < 0 && (r = spawner_start(&cfg, &fake_fd, &fake_pid)) < 0)
		return r;
	return spawner_spawn(fake_fd, c, out);
}
