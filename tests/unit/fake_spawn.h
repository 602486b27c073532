/* plugin_spawn() on the real spawner, for the unit tests and fuzz
 * targets that reach adb's services (fake_spawn.c). */
#ifndef FAKE_SPAWN_H
#define FAKE_SPAWN_H

/*
 * What the spawner may run, as the worker fixes it from the profile
 * (default /bin/sh and no reboot command). The next plugin_spawn()
 * starts a new spawner with it.
 */
void fake_spawn_config(const char *shell, const char *reboot);

#endif
