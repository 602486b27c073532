#include "supervisor.h"
#include "supervisor_int.h"
#include "log.h"
#include "loop.h"
#include "wmsg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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
	snprintf(text, sizeof(text), "function %s: no reply from plugin within %d ms",
		 c->w->name, SUP_COMMAND_MS);
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
	c->fn = fn;
	c->data = data;
	c->timer = loop_add_timer(s->loop, SUP_COMMAND_MS, supervisor_command_timeout, c);
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
