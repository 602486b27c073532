#include "mtp_events.h"
#include "mtp_proto.h"

#include "log.h"
#include "loop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MTP_EVENTS_MASK                                                        \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |                 \
	 IN_CLOSE_WRITE | IN_ATTRIB | IN_ONLYDIR | IN_EXCL_UNLINK)

/* Objects whose next change of ours is not news to the host. */
#define MTP_EVENTS_MUTED 8

struct mtp_events_dir {
	uint32_t storage;
	uint32_t parent;
	bool used;
};

struct mtp_events {
	const char *name; /* what its log lines start with */
	struct mtp_store *store;
	struct loop_watch *watch;
	int fd;
	struct mtp_events_dir *dirs; /* indexed by watch descriptor */
	size_t n_dirs;
	mtp_events_fn fn;
	void *data;
	uint32_t muted[MTP_EVENTS_MUTED]; /* ring of objects the host wrote */
	unsigned n_muted;
};

static void mtp_events_listed(void *data, uint32_t storage, uint32_t parent,
			      int dirfd)
{
	struct mtp_events *e = data;
	char path[64];
	int wd;

	/* The fd names the folder without another path walk. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", dirfd);
	wd = inotify_add_watch(e->fd, path, MTP_EVENTS_MASK);
	if (wd < 0) {
		log_debug("%s: cannot watch folder %u: %s", e->name, parent,
			  strerror(errno));
		return;
	}
	if ((size_t)wd >= e->n_dirs) {
		size_t n = wd + 64;
		struct mtp_events_dir *d = realloc(e->dirs, n * sizeof(*d));

		if (!d)
			return;
		memset(d + e->n_dirs, 0, (n - e->n_dirs) * sizeof(*d));
		e->dirs = d;
		e->n_dirs = n;
	}
	e->dirs[wd] = (struct mtp_events_dir){storage, parent, true};
}

void mtp_events_mute(struct mtp_events *e, uint32_t handle)
{
	if (e)
		e->muted[e->n_muted++ % MTP_EVENTS_MUTED] = handle;
}

void mtp_events_forget_storage(struct mtp_events *e, uint32_t storage)
{
	for (size_t wd = 0; e && wd < e->n_dirs; wd++) {
		if (!e->dirs[wd].used || e->dirs[wd].storage != storage)
			continue;
		/* Its records still waiting find the slot unused. */
		inotify_rm_watch(e->fd, (int)wd);
		e->dirs[wd].used = false;
	}
}

/* True (and forgotten) when handle was muted. */
static bool mtp_events_unmute(struct mtp_events *e, uint32_t h)
{
	for (unsigned i = 0; i < MTP_EVENTS_MUTED; i++) {
		if (e->muted[i] == h) {
			e->muted[i] = 0;
			return true;
		}
	}
	return false;
}

static void mtp_events_one(struct mtp_events *e, const struct inotify_event *ev)
{
	struct mtp_events_dir *d;
	uint32_t h;

	if (ev->wd < 0 || (size_t)ev->wd >= e->n_dirs || !e->dirs[ev->wd].used)
		return;
	d = &e->dirs[ev->wd];
	if (ev->mask & IN_IGNORED) {
		d->used = false;
		return;
	}
	if (!ev->len)
		return;
	h = mtp_store_handle(e->store, d->storage, d->parent, ev->name);
	if (ev->mask & (IN_CREATE | IN_MOVED_TO)) {
		if (h)
			return;
		h = mtp_store_lookup(e->store, d->storage, d->parent, ev->name);
		if (h) {
			/* The writer's close says nothing new yet. */
			mtp_events_mute(e, h);
			e->fn(e->data, MTP_EV_OBJECT_ADDED, h);
		}
	} else if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
		if (!h)
			return;
		mtp_store_handle_forget(e->store, h);
		e->fn(e->data, MTP_EV_OBJECT_REMOVED, h);
	} else if (h && (ev->mask & (IN_CLOSE_WRITE | IN_ATTRIB)) &&
		   !mtp_events_unmute(e, h)) {
		e->fn(e->data, MTP_EV_OBJECT_INFO_CHANGED, h);
	}
}

void mtp_events_dispatch(struct mtp_events *e)
{
	char buf[8192]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(e->fd, buf, sizeof(buf))) > 0) {
		mtp_store_changed(e->store);
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const void *)p;

			mtp_events_one(e, ev);
			p += sizeof(*ev) + ev->len;
		}
	}
}

static void mtp_events_io(struct loop_watch *w, int fd, uint32_t events,
			  void *data)
{
	mtp_events_dispatch(data);
}

static bool mtp_events_quiet(void *data)
{
	struct mtp_events *e = data;
	int n = 0;

	return ioctl(e->fd, FIONREAD, &n) == 0 && n == 0;
}

struct mtp_events *mtp_events_new(const char *name, struct loop *l,
				  struct mtp_store *s, mtp_events_fn fn,
				  void *data)
{
	struct mtp_events *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->name = name;
	e->store = s;
	e->fn = fn;
	e->data = data;
	e->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (e->fd < 0) {
		free(e);
		return NULL;
	}
	if (l) {
		e->watch = loop_add_fd(l, e->fd, EPOLLIN, mtp_events_io, e);
		if (!e->watch) {
			close(e->fd);
			free(e);
			return NULL;
		}
	}
	mtp_store_set_listed_fn(s, mtp_events_listed, e);
	mtp_store_set_quiet_fn(s, mtp_events_quiet, e);
	return e;
}

void mtp_events_free(struct mtp_events *e)
{
	if (!e)
		return;
	mtp_store_set_listed_fn(e->store, NULL, NULL);
	mtp_store_set_quiet_fn(e->store, NULL, NULL);
	if (e->watch)
		loop_watch_remove(e->watch);
	else
		close(e->fd);
	free(e->dirs);
	free(e);
}
