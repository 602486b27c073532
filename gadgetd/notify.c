/*
 * notify: sd_notify's datagram protocol without libsystemd. gadgetd sends
 * two kinds of message (READY/STOPPING and WATCHDOG), which do not justify
 * a library dependency, and the loopback bed runs gadgetd without systemd.
 */
#include "notify.h"
#include "log.h"
#include "loop.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct notify_watchdog {
	struct loop_watch *timer;
	uint64_t period_ms;
};

int notify_send(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t sl;
	ssize_t n;
	int fd, r = 0;

	if (!path || !path[0])
		return 0;
	if ((path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, strlen(path));
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	sl = offsetof(struct sockaddr_un, sun_path) + strlen(path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, sl);
	if (n < 0)
		r = -errno;
	close(fd);
	return r;
}

/* A decimal number of at most 19 digits, nothing else. */
static int notify_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 19)
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

int notify_watchdog_usec(uint64_t *usec)
{
	const char *us = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	uint64_t p;

	if (!us)
		return -ENOENT;
	/* The watchdog is for the main process only; a child that inherited
	 * the environment must not feed it. */
	if (pid) {
		if (notify_parse_u64(pid, &p) < 0 || !p)
			return -EINVAL;
		if (p != (uint64_t)getpid())
			return -ENOENT;
	}
	if (notify_parse_u64(us, usec) < 0 || !*usec)
		return -EINVAL;
	return 0;
}

static void notify_watchdog_tick(struct loop_watch *t, void *data)
{
	struct notify_watchdog *w = data;
	int r = notify_send("WATCHDOG=1");

	if (r < 0)
		log_warnx("watchdog: cannot notify systemd: %s", strerror(-r));
	loop_timer_rearm(t, w->period_ms);
}

struct notify_watchdog *notify_watchdog_new(struct loop *l)
{
	struct notify_watchdog *w;
	uint64_t usec;
	int r = notify_watchdog_usec(&usec);

	if (r < 0) {
		if (r == -EINVAL)
			log_warnx("watchdog: malformed WATCHDOG_USEC or WATCHDOG_PID; "
				  "not feeding it");
		errno = -r;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	/* Half the interval, as sd_watchdog_enabled(3) advises; at least
	 * 1 ms so that the timer is armed. */
	w->period_ms = usec / 2000 ? usec / 2000 : 1;
	w->timer = loop_add_timer(l, w->period_ms, notify_watchdog_tick, w);
	if (!w->timer) {
		free(w);
		return NULL;
	}
	log_info("watchdog: notifying systemd every %llu ms",
		 (unsigned long long)w->period_ms);
	return w;
}

void notify_watchdog_free(struct notify_watchdog *w)
{
	if (!w)
		return;
	loop_watch_remove(w->timer);
	free(w);
}
