#include "udc.h"
#include "log.h"
#include "loop.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define UDC_SYSFS "/sys/class/udc"

struct udc_monitor {
	struct loop_watch *watch;
	udc_change_fn fn;
	void *data;
};

static int udc_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "auto" prefers a real controller; dummy_hcd's only when it is alone
 * (a development machine or the test bed). */
static int udc_choose(const char *policy, char **names, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (strcmp(policy, "auto") ? !strcmp(names[i], policy)
					   : strncmp(names[i], "dummy_udc", 9) != 0)
			return i;
	}
	return strcmp(policy, "auto") || !n ? -ENODEV : 0;
}

bool udc_registered(const char *name)
{
	char path[512];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), UDC_SYSFS "/%s/device", name);
	d = opendir(path);
	if (!d)
		return false;
	/* "gadget" before Linux 6.0, "gadget.N" on the gadget bus since. */
	while (!found && (de = readdir(d)))
		found = !strcmp(de->d_name, "gadget") ||
			!strncmp(de->d_name, "gadget.", 7);
	closedir(d);
	return found;
}

int udc_pick(const char *policy, char *buf, size_t size)
{
	char *names[32];
	unsigned n = 0, i;
	struct dirent *de;
	int r;
	DIR *d = opendir(UDC_SYSFS);

	if (!d)
		return -ENODEV;
	while ((de = readdir(d)) && n < 32)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(*names), udc_cmp);
	r = udc_choose(policy, names, n);
	if (r >= 0)
		snprintf(buf, size, "%s", names[r]);
	for (i = 0; i < n; i++)
		free(names[i]);
	return r < 0 ? r : 0;
}

static int udc_cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

unsigned udc_list(char *names, size_t size, unsigned max)
{
	DIR *d = opendir(UDC_SYSFS);
	struct dirent *de;
	unsigned n = 0;

	while (d && n < max && (de = readdir(d)))
		if (de->d_name[0] != '.' && strlen(de->d_name) < size)
			snprintf(names + n++ * size, size, "%s", de->d_name);
	if (d)
		closedir(d);
	qsort(names, n, size, udc_cmp_name);
	return n;
}

static void udc_read_attr(const char *name, const char *attr, char *buf,
			  size_t size, const char *none)
{
	char path[256];
	FILE *f;

	snprintf(buf, size, "%s", none);
	snprintf(path, sizeof(path), UDC_SYSFS "/%s/%s", name, attr);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* After its UDC vanished the kernel keeps the gadget waiting for it by
 * name: say so rather than "unknown". */
void udc_state(const char *name, char *buf, size_t size)
{
	char path[256];

	snprintf(path, sizeof(path), UDC_SYSFS "/%s", name);
	if (access(path, F_OK) < 0) {
		snprintf(buf, size, "absent");
		return;
	}
	udc_read_attr(name, "state", buf, size, "unknown");
}

int udc_wakeup(const char *name)
{
	char path[256];
	int fd, r = 0;

	if (!name[0] || strchr(name, '/'))
		return -EINVAL;
	snprintf(path, sizeof(path), UDC_SYSFS "/%s/srp", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "1", 1) != 1)
		r = -errno;
	close(fd);
	return r;
}

void udc_speed(const char *name, char *buf, size_t size)
{
	udc_read_attr(name, "current_speed", buf, size, "unknown");
}

void udc_function(const char *name, char *buf, size_t size)
{
	udc_read_attr(name, "function", buf, size, "");
}

/* A uevent is "ACTION@DEVPATH" then NUL-separated KEY=VALUE pairs. */
static bool udc_uevent_is_udc(const char *msg, size_t len)
{
	size_t off = 0;

	while (off < len) {
		const char *kv = msg + off;
		size_t l = strnlen(kv, len - off);
		if (l == 13 && !strncmp(kv, "SUBSYSTEM=udc", 13))
			return true;
		off += l + 1;
	}
	return false;
}

static void udc_monitor_io(struct loop_watch *w, int fd, uint32_t events,
			   void *data)
{
	struct udc_monitor *m = data;
	char buf[4096];
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT)) > 0) {
		buf[n] = '\0';
		if (udc_uevent_is_udc(buf, n))
			m->fn(m->data);
	}
}

struct udc_monitor *udc_monitor_new(struct loop *l, udc_change_fn fn, void *data)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	struct udc_monitor *m = calloc(1, sizeof(*m));
	int fd;

	if (!m)
		return NULL;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		log_warn("cannot listen to kernel uevents; UDC hotplug is not seen");
		if (fd >= 0)
			close(fd);
		free(m);
		return NULL;
	}
	m->fn = fn;
	m->data = data;
	m->watch = loop_add_fd(l, fd, EPOLLIN, udc_monitor_io, m);
	if (!m->watch) {
		close(fd);
		free(m);
		return NULL;
	}
	return m;
}

void udc_monitor_free(struct udc_monitor *m)
{
	if (!m)
		return;
	loop_watch_remove(m->watch);
	free(m);
}

struct udc_watch {
	struct loop *loop;
	struct loop_watch *attr;   /* the state file, for POLLPRI */
	struct loop_watch *timer;
	char name[64];
	char last[32];
	udc_state_fn fn;
	void *data;
};

/* A sysfs attribute is read from offset 0 each time: that also clears
 * the notification poll() reported. */
static void udc_watch_read(struct udc_watch *w, char *buf, size_t size)
{
	int fd = w->attr ? loop_watch_fd(w->attr) : -1;
	ssize_t n = fd >= 0 ? pread(fd, buf, size - 1, 0) : -1;

	if (n <= 0) {
		snprintf(buf, size, "not attached");
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

void udc_watch_check(struct udc_watch *w)
{
	char state[32];

	udc_watch_read(w, state, sizeof(state));
	if (!strcmp(state, w->last))
		return;
	snprintf(w->last, sizeof(w->last), "%s", state);
	w->fn(state, w->data);
}

static void udc_watch_notified(struct loop_watch *lw, int fd, uint32_t events,
			       void *data)
{
	struct udc_watch *w = data;

	udc_watch_check(w);
	/* The file of a UDC that went away polls ready for ever: the timer
	 * alone goes on, until the watch is freed. */
	if (events & EPOLLERR) {
		char path[256];

		snprintf(path, sizeof(path), UDC_SYSFS "/%s", w->name);
		if (access(path, F_OK) < 0)
			loop_watch_set_events(lw, 0);
	}
}

static void udc_watch_tick(struct loop_watch *t, void *data)
{
	struct udc_watch *w = data;

	udc_watch_check(w);
	loop_timer_rearm(t, UDC_WATCH_POLL_MS);
}

struct udc_watch *udc_watch_new(struct loop *l, const char *name,
				udc_state_fn fn, void *data)
{
	struct udc_watch *w = calloc(1, sizeof(*w));
	char path[256];
	int fd;

	if (!w)
		return NULL;
	w->loop = l;
	w->fn = fn;
	w->data = data;
	snprintf(w->name, sizeof(w->name), "%s", name);
	snprintf(path, sizeof(path), UDC_SYSFS "/%s/state", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		w->attr = loop_add_fd(l, fd, EPOLLPRI, udc_watch_notified, w);
		if (!w->attr)
			close(fd);
	}
	w->timer = loop_add_timer(l, UDC_WATCH_POLL_MS, udc_watch_tick, w);
	if (!w->timer) {
		loop_watch_remove(w->attr);
		free(w);
		return NULL;
	}
	udc_watch_check(w);
	return w;
}

const char *udc_watch_name(const struct udc_watch *w)
{
	return w->name;
}

const char *udc_watch_state(const struct udc_watch *w)
{
	return w->last;
}

void udc_watch_free(struct udc_watch *w)
{
	if (!w)
		return;
	loop_watch_remove(w->attr);
	loop_watch_remove(w->timer);
	free(w);
}
