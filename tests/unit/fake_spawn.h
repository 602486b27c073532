/* plugin_spawn() on the real spawner, for the unit tests and fuzz
 * targets that reach adb's services (fake_spawn.c). */
#ifndef FAKE_SPAWN_H
#define FAKE_SPAWN_H

/*
 * What the spawner may run, as the worker fixes it from the profile
 * (default /bin/sh and no reboot command). The next plugin_spawn()
 * starts a new spawner with it; the same configuration again changes
 * nothing. The plugin's option "shell" does not reach the spawner here,
 * as it does not in the worker: a fuzz target that must not run a real
 * shell says so here.
 */
void fake_spawn_config(const char *shell, const char *reboot);

struct loop;
/* Stop the spawner that answers on loop, before loop_free(loop) (its
 * watches are the loop's); nothing when another loop has it. */
void fake_spawn_detach(struct loop *loop);

#endif
