#include "mtp_hotplug.h"
#include "mtp_store.h"

#include "log.h"
#include "loop.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#define MTP_HOTPLUG_USAGE                                                      \
	"usage: storage add PATH [--name NAME] [--ro] | storage remove "      \
	"NAME|ID | storage list"

/* A followed mount point. */
struct mtp_hotplug_follow {
	char *path;
	char *desc;
	struct mtp_hotplug_spec spec; /* its strings are the two above */
	uint32_t id;		      /* shown as this storage, or 0 */
};

/* A storage hidden by the lock, or added while locked: shown at unlock. */
struct mtp_hotplug_held {
	char *path;
	char *desc;
	struct mtp_hotplug_spec spec; /* its strings are the two above */
};

struct mtp_hotplug {
	const char *name;
	struct loop *loop;
	struct mtp_store *store;
	const char *under;
	bool readonly; /* storage add serves read-only whatever it is told */
	const struct mtp_hotplug_ops *ops;
	void *data;
	struct loop_watch *watch; /* on /proc/self/mountinfo */
	struct mtp_hotplug_follow follow[MTP_STORE_MAX];
	unsigned n_follow;
	bool locked; /* mtp_hotplug_lock: nothing is shown */
	struct mtp_hotplug_held held[MTP_STORE_MAX];
	unsigned n_held;
};

bool mtp_hotplug_path_ok(const char *p)
{
	if (p[0] != '/' || strlen(p) >= 4096)
		return false;
	while (*p == '/') {
		size_t n = strcspn(++p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
	}
	return true;
}

static bool mtp_hotplug_name_ok(const char *n)
{
	size_t len = strlen(n);

	if (!len || len > MTP_HOTPLUG_NAME_MAX)
		return false;
	for (; *n; n++)
		if ((unsigned char)*n < 0x20 || *n == 0x7f)
			return false;
	return true;
}

static int mtp_hotplug_parse_add(int argc, char **argv, const char *under,
				 struct mtp_hotplug_req *req, char *why,
				 size_t size)
{
	size_t ul = under ? strlen(under) : 0;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--ro")) {
			req->readonly = true;
		} else if (!strcmp(argv[i], "--name") && i + 1 < argc) {
			req->name = argv[++i];
		} else if (argv[i][0] == '-' || req->path) {
			snprintf(why, size, "storage add: unexpected \"%s\"; "
				 MTP_HOTPLUG_USAGE, argv[i]);
			return -EINVAL;
		} else {
			req->path = argv[i];
		}
	}
	if (!req->path) {
		snprintf(why, size, "storage add: no PATH; " MTP_HOTPLUG_USAGE);
		return -EINVAL;
	}
	if (!mtp_hotplug_path_ok(req->path)) {
		snprintf(why, size, "storage add: %.200s: give an absolute path "
			 "with no \".\", \"..\" or empty component", req->path);
		return -EINVAL;
	}
	/* under is a profile's path: checked the same way at start. */
	if (under && (strncmp(req->path, under, ul) || req->path[ul] != '/')) {
		snprintf(why, size, "storage add: %.200s is not under %.200s "
			 "(option storage_add_under)", req->path, under);
		return -EINVAL;
	}
	if (!req->name)
		req->name = strrchr(req->path, '/') + 1;
	if (!mtp_hotplug_name_ok(req->name)) {
		snprintf(why, size, "storage add: the name must be 1 to %d "
			 "printable bytes", MTP_HOTPLUG_NAME_MAX);
		return -EINVAL;
	}
	return 0;
}

int mtp_hotplug_parse(int argc, char **argv, const char *under,
		      struct mtp_hotplug_req *req, char *why, size_t size)
{
	const char *verb = argc > 1 ? argv[1] : "";

	memset(req, 0, sizeof(*req));
	why[0] = '\0';
	if (!strcmp(verb, "--help") || !strcmp(verb, "help")) {
		req->verb = MTP_HOTPLUG_HELP;
		return argc == 2 ? 0 : -EINVAL;
	}
	if (!strcmp(verb, "add")) {
		req->verb = MTP_HOTPLUG_ADD;
		return mtp_hotplug_parse_add(argc, argv, under, req, why, size);
	}
	if (!strcmp(verb, "remove") && argc == 3 && argv[2][0]) {
		req->verb = MTP_HOTPLUG_REMOVE;
		req->name = argv[2];
		return 0;
	}
	if (!strcmp(verb, "list") && argc == 2) {
		req->verb = MTP_HOTPLUG_LIST;
		return 0;
	}
	snprintf(why, size, MTP_HOTPLUG_USAGE);
	return -EINVAL;
}

struct mtp_hotplug *mtp_hotplug_new(const char *name, struct loop *l,
				    struct mtp_store *store, const char *under,
				    const struct mtp_hotplug_ops *ops,
				    void *data)
{
	struct mtp_hotplug *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->name = name;
	h->loop = l;
	h->store = store;
	h->under = under;
	h->ops = ops;
	h->data = data;
	return h;
}

void mtp_hotplug_set_readonly(struct mtp_hotplug *h, bool readonly)
{
	h->readonly = readonly;
}

void mtp_hotplug_free(struct mtp_hotplug *h)
{
	if (!h)
		return;
	if (h->watch)
		loop_watch_remove(h->watch);
	for (unsigned i = 0; i < h->n_follow; i++) {
		free(h->follow[i].path);
		free(h->follow[i].desc);
	}
	for (unsigned i = 0; i < h->n_held; i++) {
		free(h->held[i].path);
		free(h->held[i].desc);
	}
	free(h);
}

/* The next field of a mountinfo line at *p, unescaped into out. */
static bool mtp_hotplug_field(const char **p, const char *end, char *out,
			      size_t size)
{
	const char *s = *p;
	size_t n = 0;

	while (s < end && *s == ' ')
		s++;
	while (s < end && *s != ' ' && *s != '\n') {
		char c = *s++;

		/* Spaces, tabs, newlines and backslashes come as \ooo. */
		if (c == '\\' && end - s >= 3 && s[0] >= '0' && s[0] <= '3' &&
		    s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7') {
			c = (char)((s[0] - '0') << 6 | (s[1] - '0') << 3 |
				   (s[2] - '0'));
			s += 3;
		}
		if (n + 1 >= size)
			return false;
		out[n++] = c;
	}
	out[n] = '\0';
	*p = s;
	return n > 0;
}

bool mtp_hotplug_mounted(const char *buf, size_t n, const char *path)
{
	const char *end = buf + n, *line = buf;
	char field[4096];

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *p = line, *stop = nl ? nl : end;
		bool ok = true;

		/* id, parent id, major:minor, root, then the mount point. */
		for (unsigned i = 0; ok && i < 5; i++)
			ok = mtp_hotplug_field(&p, stop, field, sizeof(field));
		if (ok && !strcmp(field, path))
			return true;
		line = stop + 1;
	}
	return false;
}

/* The whole of mountinfo (which is seekable) into *buf: its length, or
 * -errno. */
static ssize_t mtp_hotplug_read(int fd, char **buf)
{
	size_t cap = 16384, n = 0;
	char *b = malloc(cap);
	ssize_t r;

	if (!b || lseek(fd, 0, SEEK_SET) < 0) {
		free(b);
		return b ? -errno : -ENOMEM;
	}
	while ((r = read(fd, b + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap) {
			char *nb = cap < (64u << 20) ? realloc(b, cap * 2) : NULL;

			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
	}
	if (r < 0) {
		free(b);
		return -errno;
	}
	*buf = b;
	return (ssize_t)n;
}

static bool mtp_hotplug_exists(struct mtp_hotplug *h, uint32_t id)
{
	for (unsigned i = 0; i < mtp_store_count(h->store); i++)
		if (mtp_store_id(h->store, i) == id)
			return true;
	return false;
}

/* NAME or ID (decimal or 0x...) to a storage id: 0 when none. */
static uint32_t mtp_hotplug_lookup(struct mtp_hotplug *h, const char *what)
{
	uint32_t id = mtp_store_find_desc(h->store, what);
	unsigned long long v;
	char *end;

	if (id)
		return id;
	errno = 0;
	v = strtoull(what, &end, 0);
	if (errno || *end || what[0] == '-' || v == 0 || v > UINT32_MAX)
		return 0;
	return mtp_hotplug_exists(h, (uint32_t)v) ? (uint32_t)v : 0;
}

/* Show or hide f as mounted says. */
static void mtp_hotplug_apply(struct mtp_hotplug *h,
			      struct mtp_hotplug_follow *f, bool mounted)
{
	int rc;

	/* `storage remove` may have taken it meanwhile. */
	if (f->id && !mtp_hotplug_exists(h, f->id))
		f->id = 0;
	/* While locked nothing is shown: mtp_hotplug_lock's unlock scans. */
	if (mounted && !f->id && !h->locked) {
		rc = h->ops->show(h->data, &f->spec, &f->id);
		if (rc < 0) {
			f->id = 0;
			log_warnx("%s: %s is mounted but cannot be a storage: "
				  "%s", h->name, f->path, strerror(-rc));
		} else {
			log_info("%s: %s mounted: storage 0x%08" PRIx32
				 " shown", h->name, f->path, f->id);
		}
	} else if (!mounted && f->id) {
		log_info("%s: %s unmounted: storage 0x%08" PRIx32 " hidden",
			 h->name, f->path, f->id);
		h->ops->hide(h->data, f->id);
		f->id = 0;
	}
}

void mtp_hotplug_scan(struct mtp_hotplug *h)
{
	char *buf = NULL;
	ssize_t n;

	if (!h->watch)
		return;
	n = mtp_hotplug_read(loop_watch_fd(h->watch), &buf);
	if (n < 0) {
		log_warnx("%s: reading /proc/self/mountinfo: %s", h->name,
			  strerror((int)-n));
		return;
	}
	for (unsigned i = 0; i < h->n_follow; i++)
		mtp_hotplug_apply(h, &h->follow[i],
				  mtp_hotplug_mounted(buf, (size_t)n,
						      h->follow[i].path));
	free(buf);
}

static void mtp_hotplug_io(struct loop_watch *w, int fd, uint32_t events,
			   void *data)
{
	/* POLLPRI (with POLLERR) until the file is read again: scan does. */
	mtp_hotplug_scan(data);
}

static int mtp_hotplug_watch(struct mtp_hotplug *h)
{
	int fd;

	if (h->watch || !h->loop)
		return 0;
	fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	h->watch = loop_add_fd(h->loop, fd, EPOLLPRI, mtp_hotplug_io, h);
	if (!h->watch) {
		close(fd);
		return -ENOMEM;
	}
	return 0;
}

int mtp_hotplug_follow(struct mtp_hotplug *h,
		       const struct mtp_hotplug_spec *spec)
{
	struct mtp_hotplug_follow *f;
	int rc;

	if (h->n_follow == MTP_STORE_MAX)
		return -ENOSPC;
	rc = mtp_hotplug_watch(h);
	if (rc < 0)
		return rc;
	f = &h->follow[h->n_follow];
	f->path = strdup(spec->path);
	f->desc = strdup(spec->desc ? spec->desc : spec->path);
	if (!f->path || !f->desc) {
		free(f->path);
		free(f->desc);
		return -ENOMEM;
	}
	f->spec = *spec;
	f->spec.path = f->path;
	f->spec.desc = f->desc;
	f->id = 0;
	h->n_follow++;
	return 0;
}


/* Keep spec (its strings copied) for the unlock: 0 or -errno. */
static int mtp_hotplug_hold(struct mtp_hotplug *h,
			    const struct mtp_hotplug_spec *spec)
{
	struct mtp_hotplug_held *k = &h->held[h->n_held];

	if (h->n_held >= MTP_STORE_MAX)
		return -ENOSPC;
	k->path = strdup(spec->path);
	k->desc = strdup(spec->desc ? spec->desc : spec->path);
	if (!k->path || !k->desc) {
		free(k->path);
		free(k->desc);
		return -ENOMEM;
	}
	k->spec = *spec;
	k->spec.path = k->path;
	k->spec.desc = k->desc;
	h->n_held++;
	return 0;
}

static void mtp_hotplug_unhold(struct mtp_hotplug *h, unsigned i)
{
	free(h->held[i].path);
	free(h->held[i].desc);
	memmove(&h->held[i], &h->held[i + 1],
		(h->n_held - i - 1) * sizeof(h->held[0]));
	h->n_held--;
}

/* The held storage named name, or -1. */
static int mtp_hotplug_held_find(struct mtp_hotplug *h, const char *name)
{
	for (unsigned i = 0; i < h->n_held; i++)
		if (!strcmp(h->held[i].desc, name))
			return (int)i;
	return -1;
}

/* Hide storage id for the lock, keeping what shows it again. */
static int mtp_hotplug_lock_one(struct mtp_hotplug *h, uint32_t id)
{
	struct mtp_hotplug_spec spec = {0};
	struct mtp_storage_stat st;
	int rc = 0;

	for (unsigned i = 0; i < h->n_follow; i++)
		if (h->follow[i].id == id) {
			/* The unlock's scan shows it if it is still mounted. */
			h->follow[i].id = 0;
			return h->ops->hide(h->data, id);
		}
	rc = mtp_store_storage_stat(h->store, id, &st);
	if (rc == 0) {
		spec = (struct mtp_hotplug_spec){
		    .path = st.path, .desc = st.description,
		    .readonly = st.readonly, .reserve_bytes = st.reserve,
		    .reserve_inodes = st.reserve_inodes};
		rc = mtp_hotplug_hold(h, &spec);
	}
	if (rc < 0)
		log_warnx("%s: locked: storage 0x%08" PRIx32 " will not come "
			  "back at unlock: %s", h->name, id, strerror(-rc));
	return h->ops->hide(h->data, id);
}

void mtp_hotplug_lock(struct mtp_hotplug *h, bool locked)
{
	unsigned n = 0;
	uint32_t id;

	if (locked == h->locked)
		return;
	h->locked = locked;
	if (locked) {
		while (mtp_store_count(h->store) > 0) {
			id = mtp_store_id(h->store, 0);
			if (mtp_hotplug_lock_one(h, id) < 0)
				break; /* not removed: do not spin on it */
			n++;
		}
		log_info("%s: locked: %u storage(s) hidden", h->name, n);
		return;
	}
	for (unsigned i = 0; i < h->n_held; i++) {
		int rc = h->ops->show(h->data, &h->held[i].spec, &id);

		if (rc < 0)
			log_warnx("%s: unlocked: %s cannot be a storage: %s",
				  h->name, h->held[i].path, strerror(-rc));
		free(h->held[i].path);
		free(h->held[i].desc);
	}
	log_info("%s: unlocked: %u storage(s) shown again", h->name,
		 h->n_held);
	h->n_held = 0;
	mtp_hotplug_scan(h);
}

/* `storage add` while locked: checked as far as it can be without
 * showing it, and held for the unlock. */
static int mtp_hotplug_add_locked(struct mtp_hotplug *h,
				  const struct mtp_hotplug_spec *spec,
				  char *reply, size_t size)
{
	struct stat sb;
	int rc = 0;

	if (lstat(spec->path, &sb) < 0)
		rc = -errno;
	else if (!S_ISDIR(sb.st_mode))
		rc = -ENOTDIR;
	if (rc == 0)
		rc = mtp_hotplug_hold(h, spec);
	if (rc == -ENOSPC)
		snprintf(reply, size, "storage add: %s: no room for another "
			 "storage (%d at once)", spec->path, MTP_STORE_MAX);
	else if (rc < 0)
		snprintf(reply, size, "storage add: %s: %s", spec->path,
			 strerror(-rc));
	else
		snprintf(reply, size, "storage \"%s\" added; the device is "
			 "locked: it is shown at unlock", spec->desc);
	return rc;
}

static int mtp_hotplug_add(struct mtp_hotplug *h,
			   const struct mtp_hotplug_req *req, char *reply,
			   size_t size)
{
	struct mtp_hotplug_spec spec = {
	    .path = req->path,
	    .desc = req->name,
	    .readonly = req->readonly || h->readonly,
	    .reserve_inodes = MTP_HOTPLUG_RESERVE_INODES,
	};
	uint32_t id;
	int rc;

	if (mtp_store_find_desc(h->store, req->name) ||
	    mtp_hotplug_held_find(h, req->name) >= 0) {
		snprintf(reply, size, "storage add: a storage is named "
			 "\"%s\" already", req->name);
		return -EEXIST;
	}
	if (h->locked)
		return mtp_hotplug_add_locked(h, &spec, reply, size);
	rc = h->ops->show(h->data, &spec, &id);
	if (rc == -ELOOP)
		snprintf(reply, size, "storage add: %s: a component is a "
			 "symbolic link; give the real path", req->path);
	else if (rc == -ENOSPC)
		snprintf(reply, size, "storage add: %s: no room for another "
			 "storage (%d at once)", req->path, MTP_STORE_MAX);
	else if (rc < 0)
		snprintf(reply, size, "storage add: %s: %s", req->path,
			 strerror(-rc));
	else
		snprintf(reply, size, "storage 0x%08" PRIx32 " \"%s\" added",
			 id, req->name);
	return rc;
}

static int mtp_hotplug_remove(struct mtp_hotplug *h, const char *what,
			      char *reply, size_t size)
{
	uint32_t id = mtp_hotplug_lookup(h, what);
	int k = mtp_hotplug_held_find(h, what);
	int rc;

	if (!id && k >= 0) {
		mtp_hotplug_unhold(h, (unsigned)k);
		snprintf(reply, size, "storage \"%s\" removed (it was held "
			 "for the unlock)", what);
		return 0;
	}
	if (!id) {
		snprintf(reply, size, "storage remove: no storage is named "
			 "or numbered \"%s\"", what);
		return -ENOENT;
	}
	rc = h->ops->hide(h->data, id);
	if (rc < 0)
		snprintf(reply, size, "storage remove: %s: %s", what,
			 strerror(-rc));
	else
		snprintf(reply, size, "storage 0x%08" PRIx32 " removed", id);
	return rc;
}

static void mtp_hotplug_list(struct mtp_hotplug *h, char *reply, size_t size)
{
	size_t off = 0;

	reply[0] = '\0';
	for (unsigned i = 0; i < mtp_store_count(h->store) && off < size; i++) {
		uint32_t id = mtp_store_id(h->store, i);
		struct mtp_storage_stat st;

		if (mtp_store_storage_stat(h->store, id, &st) < 0)
			continue;
		off += (size_t)snprintf(reply + off, size - off,
					"%s0x%08" PRIx32 " %s %s \"%s\"",
					off ? "\n" : "", id,
					st.readonly ? "ro" : "rw", st.path,
					st.description);
	}
	/* Followed mount points with nothing mounted, or taken away by
	 * `storage remove` until their next mount. */
	for (unsigned i = 0; i < h->n_follow && off < size; i++)
		if (!mtp_hotplug_exists(h, h->follow[i].id))
			off += (size_t)snprintf(
			    reply + off, size - off, "%s- %s %s \"%s\" (not "
			    "shown)", off ? "\n" : "",
			    h->follow[i].spec.readonly ? "ro" : "rw",
			    h->follow[i].path, h->follow[i].desc);
	for (unsigned i = 0; i < h->n_held && off < size; i++)
		off += (size_t)snprintf(
		    reply + off, size - off, "%s- %s %s \"%s\" (locked: shown "
		    "at unlock)", off ? "\n" : "",
		    h->held[i].spec.readonly ? "ro" : "rw", h->held[i].path,
		    h->held[i].desc);
	if (!off)
		snprintf(reply, size, "no storage");
}

int mtp_hotplug_command(struct mtp_hotplug *h, int argc, char **argv,
			char *reply, size_t size)
{
	struct mtp_hotplug_req req;
	int rc = mtp_hotplug_parse(argc, argv, h->under, &req, reply, size);

	if (rc < 0)
		return rc;
	switch (req.verb) {
	case MTP_HOTPLUG_HELP:
		snprintf(reply, size, MTP_HOTPLUG_USAGE);
		return 0;
	case MTP_HOTPLUG_ADD:
		return mtp_hotplug_add(h, &req, reply, size);
	case MTP_HOTPLUG_REMOVE:
		return mtp_hotplug_remove(h, req.name, reply, size);
	case MTP_HOTPLUG_LIST:
		mtp_hotplug_list(h, reply, size);
		return 0;
	}
	return -EINVAL;
}
