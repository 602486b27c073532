/*
 * fake_bus: a private dbus-daemon for a unit test, like the system bus:
 * everyone may call, send and receive. DBUS_SYSTEM_BUS_ADDRESS points at
 * it, so sd_bus_open_system() reaches it.
 */
#ifndef GADGETD_FAKE_BUS_H
#define GADGETD_FAKE_BUS_H

#include <sys/types.h>

/*
 * Start it with its socket and configuration in dir; in_default is added
 * to the default policy (e.g. "<allow own=\"*\"/>"), after whatever
 * follows it (more policies, includes). Returns once a client can
 * connect: the daemon's pid.
 */
pid_t fake_bus_start(const char *dir, const char *in_default, const char *after);
/* SIGTERM, and wait for it; *pid 0 after. */
void fake_bus_stop(pid_t *pid);

#endif
