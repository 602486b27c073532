/*
 * plugin_spawn() for the unit tests and fuzz targets that reach adb's
 * services: the real spawner (functions/spawner.c), started as the worker
 * starts it, from the options shell and reboot_command; started again
 * when a test changes them.
 */
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plugin.h"
#include "spawner.h"

int plugin_spawn(struct plugin *p, const struct spawner_cmd *c,
		 struct spawner_child *out)
{
	static char shell[256], reboot[256];
	static int fd = -1;
	static pid_t pid;
	const char *sh = plugin_option(p, "shell");
	const char *rb = plugin_option(p, "reboot_command");
	struct spawner_cfg cfg;
	int r;

	if (!sh || !*sh)
		sh = "/bin/sh";
	if (!rb)
		rb = "";
	if (fd >= 0 && (strcmp(sh, shell) || strcmp(rb, reboot))) {
		close(fd);
		waitpid(pid, NULL, 0);
		fd = -1;
	}
	if (fd < 0) {
		snprintf(shell, sizeof(shell), "%s", sh);
		snprintf(reboot, sizeof(reboot), "%s", rb);
		cfg.shell = shell;
		cfg.reboot = reboot[0] ? reboot : NULL;
		if ((r = spawner_start(&cfg, &fd, &pid)) < 0)
			return r;
	}
	return spawner_spawn(fd, c, out);
}
