/*
 * console_getty: agetty run by gadgetd (console_getty.h).
 */
#include "console_getty.h"
#include "config.h"
#include "console.h"
#include "log.h"
#include "netproc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

struct console_getty {
	struct loop *loop;
	const struct config *cfg;
	struct console *console;
	struct netproc *proc[CONSOLE_MAX];
	unsigned port[CONSOLE_MAX];
	unsigned n;
};

static int console_getty_start(void *be, unsigned port)
{
	struct console_getty *g = be;
	char tty[32], what[48], pid[4200];
	/* -L: a local line, no carrier to wait for (u_serial has none);
	 * the terminal type as serial-getty@.service gives it. */
	char *argv[] = { "agetty", "-L", tty, "115200", "vt220", NULL };

	if (g->n == CONSOLE_MAX)
		return -ENOSPC;
	snprintf(tty, sizeof(tty), "ttyGS%u", port);
	snprintf(what, sizeof(what), "console %s: agetty", tty);
	snprintf(pid, sizeof(pid), "%s/console-%s.pid", g->cfg->run_dir, tty);
	/* What a gadgetd killed with SIGKILL left on the port. */
	netproc_kill_stale(pid);
	g->proc[g->n] = netproc_start(g->loop, g->cfg, what, argv, pid, NULL);
	if (!g->proc[g->n])
		return -EIO;
	g->port[g->n++] = port;
	console_told(g->console, port, CONSOLE_RUNNING);
	return 0;
}

static void console_getty_stop(void *be, unsigned port)
{
	struct console_getty *g = be;
	unsigned i;

	for (i = 0; i < g->n; i++)
		if (g->port[i] == port) {
			netproc_stop(g->proc[i]);
			g->n--;
			g->proc[i] = g->proc[g->n];
			g->port[i] = g->port[g->n];
			return;
		}
}

static void console_getty_free(void *be)
{
	struct console_getty *g = be;

	while (g->n)
		netproc_kill(g->proc[--g->n]);
	free(g);
}

static const struct console_ops console_getty_ops = {
	.name = "agetty",
	.start = console_getty_start,
	.stop = console_getty_stop,
	.free = console_getty_free,
};

struct console *console_getty_new(struct loop *l, const struct config *cfg)
{
	struct console_getty *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->loop = l;
	g->cfg = cfg;
	g->console = console_new(&console_getty_ops, g);
	if (!g->console) {
		free(g);
		return NULL;
	}
	return g->console;
}
