/*
 * plugin_spawn() for the unit tests and fuzz targets that reach adb's
 * services: the real spawner (functions/runtime/spawner.c), started as the worker
 * starts it, once, and again after fake_spawn_config().
 *
 * The spawner and its children are forks of the test process, which
 * carries the test framework's handlers: libFuzzer's for SIGINT, SIGTERM,
 * SIGALRM, SIGUSR1/2 and SIGXFSZ, and its sanitizer death callback. A
 * child that ran them would print libFuzzer's final statistics into the
 * same log (fuzz-long.sh then saw two stat blocks) or write a crash
 * artifact for the parent's input. So every fork of this process drops
 * them in the child; the children leave with _exit (spawner.c), so the
 * framework's atexit handlers do not run either.
 */
#include "fake_spawn.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plugin.h"
#include "spawner.h"

static char fake_shell[256] = "/bin/sh", fake_reboot[256];
/* The worker's end, on the loop of the plugin that last spawned. */
static struct spawner *fake_sp;
static struct loop *fake_loop;
static pid_t fake_pid;

/* Close the worker's end: the spawner hangs up its children and exits. */
static void fake_spawn_stop(void)
{
	if (!fake_sp)
		return;
	spawner_free(fake_sp);
	waitpid(fake_pid, NULL, 0);
	fake_sp = NULL;
	fake_loop = NULL;
}

void fake_spawn_config(const char *shell, const char *reboot)
{
	if (!strcmp(shell, fake_shell) && !strcmp(reboot ? reboot : "", fake_reboot))
		return;
	snprintf(fake_shell, sizeof(fake_shell), "%s", shell);
	snprintf(fake_reboot, sizeof(fake_reboot), "%s", reboot ? reboot : "");
	fake_spawn_stop();
}

void fake_spawn_detach(struct loop *loop)
{
	if (fake_loop == loop)
		fake_spawn_stop();
}

/* From the sanitizer runtime when it is linked in (ASan builds). */
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

/* Runs in the child after fork: only async-signal-safe calls. */
static void fake_spawn_child(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGALRM,
				    SIGUSR1, SIGUSR2, SIGXFSZ };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &dfl, NULL);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
}

int plugin_spawn(struct plugin *p, const struct spawner_cmd *c,
		 spawner_done_fn done, void *data, struct spawner_call **call)
{
	static bool atfork;
	struct spawner_cfg cfg = {
		.shell = fake_shell,
		.reboot = fake_reboot[0] ? fake_reboot : NULL,
	};
	int r;

	if (!atfork) {
		pthread_atfork(NULL, NULL, fake_spawn_child);
		atfork = true;
	}
	/* A spawner belongs to one loop, as the worker's does. */
	if (fake_sp && fake_loop != plugin_loop(p))
		fake_spawn_stop();
	if (!fake_sp) {
		int fd;

		r = spawner_start(&cfg, &fd, &fake_pid);
		if (r < 0)
			return r;
		fake_sp = spawner_new(plugin_loop(p), fd);
		if (!fake_sp) {
			waitpid(fake_pid, NULL, 0);
			return -ENOMEM;
		}
		fake_loop = plugin_loop(p);
	}
	return spawner_spawn(fake_sp, c, done, data, call);
}

void plugin_spawn_cancel(struct spawner_call *call)
{
	spawner_cancel(call);
}
