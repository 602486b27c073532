/*
 * plugin_spawn() for the unit tests and fuzz targets that reach adb's
 * services: the real spawner (functions/spawner.c), started once per
 * process, as the worker starts it.
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
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "plugin.h"
#include "spawner.h"

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
		 struct spawner_child *out)
{
	static int fd = -1;
	pid_t pid;
	int r;

	if (fd < 0) {
		pthread_atfork(NULL, NULL, fake_spawn_child);
		if ((r = spawner_start(&fd, &pid)) < 0)
			return r;
	}
	return spawner_spawn(fd, c, out);
}
