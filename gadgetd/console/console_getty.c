/*
 * console_getty: agetty run by gadgetd (console_getty.h).
 */
#include "console_getty.h"
#include "config.h"
#include "console.h"
#include "log.h"
#include "netproc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* A port's agetty; proc NULL: the slot is free. */
struct console_getty_port {
	struct console_getty *g;
	struct netproc *proc;
	unsigned port;
};

struct console_getty {
	struct loop *loop;
	const struct config *cfg;
	struct console *console;
	struct console_getty_port slot[CONSOLE_MAX];
};

/* agetty kept failing (restart_limit exits within restart_window that
 * were not logouts): status says so until the next start. */
static void console_getty_failed(void *data)
{
	struct console_getty_port *s = data;

	console_told(s->g->console, s->port, CONSOLE_FAILED);
}

static struct console_getty_port *console_getty_slot(struct console_getty *g,
						     unsigned port, bool used)
{
	unsigned i;

	for (i = 0; i < CONSOLE_MAX; i++)
		if (used ? g->slot[i].proc && g->slot[i].port == port : !g->slot[i].proc)
			return &g->slot[i];
	return NULL;
}

static int console_getty_start(void *be, unsigned port)
{
	struct console_getty *g = be;
	struct console_getty_port *s = console_getty_slot(g, 0, false);
	char tty[32], what[48], pid[4200];
	/* -L: a local line, no carrier to wait for (u_serial has none);
	 * the terminal type as serial-getty@.service gives it. */
	char *argv[] = { "agetty", "-L", tty, "115200", "vt220", NULL };

	if (!s)
		return -ENOSPC;
	snprintf(tty, sizeof(tty), "ttyGS%u", port);
	snprintf(what, sizeof(what), "console %s: agetty", tty);
	snprintf(pid, sizeof(pid), "%s/console-%s.pid", g->cfg->run_dir, tty);
	/* What a gadgetd killed with SIGKILL left on the port. */
	netproc_kill_stale(pid);
	s->proc = netproc_start(g->loop, g->cfg, what, argv, pid, NULL);
	if (!s->proc)
		return -EIO;
	s->g = g;
	s->port = port;
	/* Each logout ends agetty (login, which it became, exits 0 when the
	 * shell ends): not a crash, or five quick logouts would end the
	 * port's logins. */
	netproc_set_session(s->proc);
	netproc_on_failed(s->proc, console_getty_failed, s);
	console_told(g->console, port, CONSOLE_RUNNING);
	return 0;
}

static void console_getty_stop(void *be, unsigned port)
{
	struct console_getty_port *s = console_getty_slot(be, port, true);

	if (s) {
		netproc_stop(s->proc);
		s->proc = NULL;
	}
	/* agetty's SIGTERM is enough: no one reopens the tty. */
	console_stopped(((struct console_getty *)be)->console, port);
}

static void console_getty_free(void *be)
{
	struct console_getty *g = be;
	unsigned i;

	for (i = 0; i < CONSOLE_MAX; i++)
		netproc_kill(g->slot[i].proc);
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
