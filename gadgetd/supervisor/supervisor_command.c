/*
 * supervisor_command: plugin commands relayed to their workers, and the
 * one thing gadgetd does for a command on a worker's behalf: appending a
 * key to the keys file during `allow` (WORKER_KEY).
 */
#include "supervisor.h"
#include "supervisor_int.h"
#include "log.h"
#include "loop.h"
#include "plugin_list.h"
#include "wmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* The longest key line appended: what adb_auth reads back as one line
 * (its 2048-byte buffer, with the newline and the NUL). */
#define SUP_KEY_LINE_MAX 2046

static void supervisor_command_report(struct loop_watch *lw, void *data)
{
	struct sup_cmd *c = data, **pp;

	for (pp = &c->sup->cmds; *pp != c; pp = &(*pp)->next)
		;
	*pp = c->next;
	if (c->fn)
		c->fn(c->rc, c->reply, c->data);
	free(c);
}

/* Done: the result goes to fn after this round, never from inside the
 * caller (a worker's event, a switch stopping the function). */
static void supervisor_command_finish(struct sup_cmd *c, int rc, const char *text)
{
	if (!c->w)
		return;
	c->w = NULL;
	c->rc = rc;
	snprintf(c->reply, sizeof(c->reply), "%s", text);
	loop_watch_remove(c->timer);
	c->timer = NULL;
	c->report = loop_add_idle(c->sup->loop, supervisor_command_report, c);
	if (!c->report)
		log_warnx("supervisor: cannot schedule a command's reply; it is "
			  "given when gadgetd stops");
}

void supervisor_command_reply(struct sup_worker *w, uint32_t id, int32_t rc,
			      const char *text)
{
	struct sup_cmd *c;

	for (c = w->sup->cmds; c; c = c->next)
		if (c->w == w && c->id == id)
			supervisor_command_finish(c, rc, text);
}

void supervisor_command_finish_all(struct sup_worker *w, int rc, const char *why)
{
	char text[256];
	struct sup_cmd *c;

	for (c = w->sup->cmds; c; c = c->next) {
		if (c->w != w)
			continue;
		snprintf(text, sizeof(text), "function %s: %s", w->name, why);
		supervisor_command_finish(c, rc, text);
	}
}

static void supervisor_command_timeout(struct loop_watch *t, void *data)
{
	struct sup_cmd *c = data;
	char text[256];

	loop_watch_remove(t);
	c->timer = NULL;
	snprintf(text, sizeof(text), "function %s: no reply from plugin within %u ms "
		 "(command_timeout)", c->w->name, c->w->sup->cfg->command_timeout_ms);
	supervisor_command_finish(c, -ETIMEDOUT, text);
}

static int supervisor_command_send(struct sup_worker *w, uint32_t id, int argc,
			    char **argv)
{
	uint8_t buf[WORKER_MSG_MAX];
	int n = wmsg_build_command(buf, sizeof(buf), id, argc, argv);

	if (n < 0)
		return n;
	if (send(loop_watch_fd(w->sock), buf, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		return -errno;
	return 0;
}

int supervisor_command(struct supervisor *s, const char *name, int argc,
		       char **argv, char *reply, size_t reply_size,
		       supervisor_reply_fn fn, void *data)
{
	struct sup_worker *w = supervisor_find(s, name);
	struct sup_cmd *c;
	int r;

	if (!w) {
		snprintf(reply, reply_size, "function %s is not live", name);
		return -ENOENT;
	}
	if (!w->sock || !w->ready) {
		snprintf(reply, reply_size, "function %s: plugin is not running", name);
		return -EAGAIN;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(reply, reply_size, "function %s: %s", name, strerror(ENOMEM));
		return -ENOMEM;
	}
	c->sup = s;
	c->w = w;
	c->id = ++s->next_cmd;
	/* The one command that changes trust: only root and admin_group may
	 * send it (access.c), so it alone may add a key. */
	c->key_allowed = argc >= 1 && !strcmp(argv[0], "allow");
	c->fn = fn;
	c->data = data;
	c->timer = loop_add_timer(s->loop, s->cfg->command_timeout_ms,
				  supervisor_command_timeout, c);
	r = c->timer ? supervisor_command_send(w, c->id, argc, argv) : -errno;
	if (r < 0) {
		loop_watch_remove(c->timer);
		free(c);
		snprintf(reply, reply_size, "function %s: %s", name, strerror(-r));
		return r;
	}
	c->next = s->cmds;
	s->cmds = c;
	return -EINPROGRESS;
}

void supervisor_command_free_all(struct supervisor *s)
{
	struct sup_cmd *c;

	/* Every command is finished now; hand the results over at once, as
	 * there is no later round. */
	while ((c = s->cmds)) {
		s->cmds = c->next;
		loop_watch_remove(c->timer);
		loop_watch_remove(c->report);
		if (c->fn)
			c->fn(c->rc, c->reply, c->data);
		free(c);
	}
}

void supervisor_command_init(struct sup_worker *w, const struct profile_function *f)
{
	const struct plugin_meta *m = plugin_list_find(w->plugin);
	const char *opt = m ? m->keys_option : NULL;
	const char *keys = opt ? plugin_meta_option(m, profile_option(f, opt), opt) : NULL;

	snprintf(w->keys, sizeof(w->keys), "%s", keys ? keys : "");
}

/*
 * One line of text, as a key line is (adb's "BASE64 comment"): a newline
 * would smuggle in a second key that `adb keys` never showed the admin. A
 * NUL cannot come through (wmsg_parse_key).
 */
static bool supervisor_command_key_line_ok(const char *line)
{
	const unsigned char *c;

	if (!line[0] || strlen(line) > SUP_KEY_LINE_MAX)
		return false;
	for (c = (const unsigned char *)line; *c; c++)
		if ((*c < 0x20 && *c != '\t') || *c == 0x7f)
			return false;
	return true;
}

/* Write line and a newline at the end of fd, after a newline if the file
 * does not end with one (an adb_keys made by copying adbkey.pub). */
static int supervisor_command_key_put(int fd, const struct stat *st,
				      const char *line)
{
	size_t len = strlen(line);
	char last;

	errno = 0;
	if (st->st_size > 0 && pread(fd, &last, 1, st->st_size - 1) == 1 &&
	    last != '\n' && write(fd, "\n", 1) != 1)
		return errno ? -errno : -EIO;
	if (write(fd, line, len) != (ssize_t)len || write(fd, "\n", 1) != 1)
		return errno ? -errno : -EIO; /* a short write sets no errno */
	return fsync(fd) < 0 ? -errno : 0;
}

/*
 * Append line to the keys file at path as root. A missing file is made
 * root's, readable by the worker's group gid (0640), as the worker's
 * prepare makes it. Never through a symbolic link, and only into a
 * regular file of one link: the file's folder may be one the worker's
 * user can write.
 */
static int supervisor_command_key_write(const char *path, gid_t gid,
					const char *line)
{
	int flags = O_RDWR | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC;
	int fd = open(path, flags | O_NONBLOCK), r;
	bool made = false;
	struct stat st;

	if (fd < 0 && errno == ENOENT) {
		fd = open(path, flags | O_CREAT | O_EXCL, 0640);
		made = fd >= 0;
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
		r = -EMLINK;
	else if (made && (fchown(fd, 0, gid) < 0 || fchmod(fd, 0640) < 0))
		r = -errno;
	else
		r = supervisor_command_key_put(fd, &st, line);
	close(fd);
	return r;
}

static int supervisor_command_key_check(struct sup_worker *w, uint32_t id,
					const char *line)
{
	struct sup_cmd *c;

	for (c = w->sup->cmds; c; c = c->next)
		if (c->w == w && c->id == id)
			break;
	/* The worker may be subverted: only an `allow` in flight, an
	 * admin's, opens the file, and for one line. Said once a worker. */
	if (!c || !c->key_allowed) {
		if (!w->key_refused_said)
			log_warnx("%s: the worker asked to add a key to its keys "
				  "file outside an `allow`; refused", w->name);
		w->key_refused_said = true;
		return -EPERM;
	}
	c->key_allowed = false;
	if (!w->keys[0]) {
		log_warnx("%s: the worker asked to add a key, but its plugin "
			  "has no keys file; refused", w->name);
		return -ENOENT;
	}
	if (!supervisor_command_key_line_ok(line)) {
		log_warnx("%s: the key the worker asked to add is not one line "
			  "of text of at most %d bytes; refused", w->name,
			  SUP_KEY_LINE_MAX);
		return -EINVAL;
	}
	return 0;
}

void supervisor_command_key(struct sup_worker *w, uint8_t *p, size_t len)
{
	uint8_t buf[16];
	const char *line;
	uint32_t id;
	int r;

	if (wmsg_parse_key(p, len, &id, &line) < 0) {
		log_warnx("%s: malformed key request from worker", w->name);
		return;
	}
	r = supervisor_command_key_check(w, id, line);
	if (r == 0) {
		r = supervisor_command_key_write(w->keys, w->gid, line);
		if (r == -EMLINK)
			log_warnx("%s: %s is not a regular file of one link; "
				  "no key added to it", w->name, w->keys);
		else if (r < 0)
			log_warnx("%s: cannot add the key to %s: %s", w->name,
				  w->keys, strerror(-r));
		else
			log_info("%s: added the allowed key to %s", w->name,
				 w->keys);
	}
	r = wmsg_build_key_done(buf, sizeof(buf), id, r);
	if (w->sock && send(loop_watch_fd(w->sock), buf, r,
			    MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		log_warn("%s: cannot answer the worker's key request", w->name);
}
