/*
 * console: which ports get a login, and when (console.h).
 */
#include "console.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct console_port {
	struct console_want w;
	enum console_state state;
};

struct console {
	const struct console_ops *ops;
	void *be;
	struct console_port port[CONSOLE_MAX];
	unsigned n;
	unsigned stopping; /* stops not yet done */
	void (*wait_fn)(void *data);
	void *wait_data;
};

struct console *console_new(const struct console_ops *ops, void *be)
{
	struct console *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ops = ops;
	c->be = be;
	return c;
}

void console_free(struct console *c)
{
	if (!c)
		return;
	c->wait_fn = NULL;
	console_sync(c, NULL, 0);
	c->ops->free(c->be);
	free(c);
}

static bool console_wanted(const struct console_port *p,
			   const struct console_want *want, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (want[i].port == p->w.port && !strcmp(want[i].function, p->w.function))
			return true;
	return false;
}

static struct console_port *console_find(struct console *c, unsigned port)
{
	unsigned i;

	for (i = 0; i < c->n; i++)
		if (c->port[i].w.port == port)
			return &c->port[i];
	return NULL;
}

/* Stop what is no longer wanted (or wanted for another function: the
 * port number was reused), then start what is new. A port that stays
 * is not touched: its login goes on. */
void console_sync(struct console *c, const struct console_want *want, unsigned n)
{
	struct console_port *p;
	unsigned i, j;
	int r;

	/* An unbind waits for the stops: nothing starts before it (a UDC's
	 * event in between would start a login on the port going away). */
	if (c->wait_fn)
		n = 0;
	for (i = j = 0; i < c->n; i++) {
		if (console_wanted(&c->port[i], want, n)) {
			c->port[j++] = c->port[i];
			continue;
		}
		log_info("%s: console on ttyGS%u stopped (%s)", c->port[i].w.function,
			 c->port[i].w.port, c->ops->name);
		c->stopping++;
		c->ops->stop(c->be, c->port[i].w.port);
	}
	c->n = j;
	for (i = 0; i < n && c->n < CONSOLE_MAX; i++) {
		if (console_find(c, want[i].port))
			continue;
		/* Listed first: a backend may tell its state from start(). */
		p = &c->port[c->n++];
		*p = (struct console_port){ .w = want[i], .state = CONSOLE_STARTING };
		r = c->ops->start(c->be, want[i].port);
		if (r < 0) {
			log_warnx("%s: cannot start a console on ttyGS%u (%s): %s",
				  want[i].function, want[i].port, c->ops->name, strerror(-r));
			p->state = CONSOLE_FAILED;
		} else {
			log_info("%s: console on ttyGS%u (%s)", want[i].function,
				 want[i].port, c->ops->name);
		}
	}
}

void console_told(struct console *c, unsigned port, enum console_state s)
{
	struct console_port *p = console_find(c, port);

	if (p)
		p->state = s;
}

void console_stopped(struct console *c, unsigned port)
{
	void (*fn)(void *data) = c->wait_fn;

	if (!c->stopping)
		return;
	if (--c->stopping || !fn)
		return;
	c->wait_fn = NULL;
	fn(c->wait_data);
}

int console_wait_stopped(struct console *c, void (*fn)(void *data), void *data)
{
	if (!c->stopping)
		return 0;
	c->wait_fn = fn;
	c->wait_data = data;
	return -EINPROGRESS;
}

void console_wait_cancel(struct console *c)
{
	c->wait_fn = NULL;
}

unsigned console_list(const struct console *c, struct console_info *out,
		      unsigned max)
{
	unsigned i;

	for (i = 0; i < c->n && i < max; i++) {
		memcpy(out[i].function, c->port[i].w.function, sizeof(out[i].function));
		out[i].port = c->port[i].w.port;
		out[i].state = c->port[i].state;
		out[i].how = c->ops->name;
	}
	return i;
}

const char *console_state_name(enum console_state s)
{
	switch (s) {
	case CONSOLE_STARTING:
		return "starting";
	case CONSOLE_RUNNING:
		return "running";
	case CONSOLE_FAILED:
		return "failed";
	}
	return "?";
}
