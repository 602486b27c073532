/*
 * notify: systemd's service notification protocol (sd_notify(3)), spoken
 * directly: one datagram per state to the AF_UNIX socket named by
 * $NOTIFY_SOCKET (a path, or "@name" in the abstract namespace). Without
 * $NOTIFY_SOCKET (gadgetd started by hand) nothing is sent.
 *
 * The watchdog: with $WATCHDOG_USEC set (WatchdogSec= in the unit) and
 * $WATCHDOG_PID unset or ours, a timer of the event loop sends
 * "WATCHDOG=1" every half interval. A loop that stops turning stops the
 * pings, and systemd restarts the service.
 */
#ifndef GADGETD_NOTIFY_H
#define GADGETD_NOTIFY_H

#include <stdint.h>

struct loop;
struct notify_watchdog;

/* Send state ("READY=1", "STOPPING=1"): 0, also when there is no
 * $NOTIFY_SOCKET; -EINVAL for an unusable one; -errno from sendto(). */
int notify_send(const char *state);

/* The watchdog interval in µs from the environment: 0, or -ENOENT when
 * no watchdog is asked of this process, -EINVAL for a malformed value. */
int notify_watchdog_usec(uint64_t *usec);

/* Start pinging from l; NULL (with errno) when no watchdog is asked for
 * (ENOENT), the environment is malformed (EINVAL) or the timer fails. */
struct notify_watchdog *notify_watchdog_new(struct loop *l);
void notify_watchdog_free(struct notify_watchdog *w);

#endif
