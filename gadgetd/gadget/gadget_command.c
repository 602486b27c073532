#include "gadget_int.h"
#include "log.h"
#include "pending.h"
#include "supervisor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The plugin's reply goes to an admin's terminal. It may quote what a USB
 * host chose (an adb key's comment) and the worker may be subverted: only
 * printable text and newlines pass, the rest as \xNN (log_printable_lines).
 */
static void gadget_command_done(int rc, const char *reply, void *data)
{
	struct gadget_cmd *c = data, **pp;
	struct gadget *g = c->g;
	size_t len = reply ? strlen(reply) : 0;
	char *safe = malloc(4 * len + 1);

	for (pp = &g->cmds; *pp != c; pp = &(*pp)->next)
		;
	*pp = c->next;
	g->n_cmds--;
	if (safe)
		log_printable_lines(safe, 4 * len + 1, reply, len);
	if (c->fn)
		c->fn(safe ? rc : -ENOMEM, safe ? safe : "out of memory", c->data);
	free(safe);
	free(c);
	pending_run_now(g->pending);
}

int gadget_command_send(struct gadget *g, int argc, char **argv, char *reply,
			size_t size, gadget_done_fn fn, void *data)
{
	struct gadget_cmd *c;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(reply, size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	c->g = g;
	c->fn = fn;
	c->data = data;
	r = supervisor_command(g->sup, argv[0], argc - 1, argv + 1, reply, size,
			       gadget_command_done, c);
	if (r != -EINPROGRESS) {
		free(c);
		return r;
	}
	c->next = g->cmds;
	g->cmds = c;
	g->n_cmds++;
	return r;
}
