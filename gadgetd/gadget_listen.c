/*
 * gadget_listen: the listening sockets of functions with TCP (adb over
 * the network). They are bound to the gadget's own network interfaces,
 * which exist only once the gadget is bound, so they are made after each
 * bind, and when a plugin asks (supervisor_tcp_fn), and handed to the
 * worker only when they differ from what its run has.
 */
#include "gadget_int.h"
#include "composer.h"
#include "log.h"
#include "supervisor.h"
#include "tcplisten.h"
#include "wmsg.h"

#include <net/if.h>
#include <stdio.h>
#include <string.h>

struct gadget_listen_ifs {
	unsigned n;
	char name[WMSG_MAX_FDS][IF_NAMESIZE];
};

/* The interfaces of the gadget's network functions, as the kernel named
 * them. */
static void gadget_listen_ifnames(struct gadget *g, struct gadget_listen_ifs *ifs)
{
	unsigned i;

	ifs->n = 0;
	for (i = 0; i < g->n_live && ifs->n < WMSG_MAX_FDS; i++) {
		if (g->live[i].fn.type->ffs)
			continue;
		if (composer_net_ifname(g->composer, g->live[i].fn.name,
					ifs->name[ifs->n], IF_NAMESIZE) == 0 &&
		    ifs->name[ifs->n][0])
			ifs->n++;
	}
}

/* Where function name listens, as "PORT@if1,if2|IDX1,IDX2" (what), into
 * ifs. The indexes tell a new interface from a gone one of the same name
 * (rndis,adb to ncm,adb: usb0 both times, adb's worker kept), whose
 * sockets no longer receive anything. */
static unsigned gadget_listen_plan(struct gadget *g, const char *name,
				   struct gadget_listen_ifs *ifs, char *what,
				   size_t size)
{
	const char *iface = "";
	unsigned port = supervisor_tcp_port(g->sup, name, &iface);
	unsigned i;
	int n;

	ifs->n = 0;
	if (port && !strcmp(iface, "*")) {
		ifs->n = 1;
		ifs->name[0][0] = '\0';
	} else if (port && iface[0]) {
		ifs->n = 1;
		snprintf(ifs->name[0], IF_NAMESIZE, "%s", iface);
	} else if (port) {
		gadget_listen_ifnames(g, ifs);
	}
	n = snprintf(what, size, "%u@", port);
	for (i = 0; i < ifs->n && n > 0 && (size_t)n < size; i++)
		n += snprintf(what + n, size - n, "%s%s", i ? "," : "",
			      ifs->name[i][0] ? ifs->name[i] : "*");
	for (i = 0; i < ifs->n && n > 0 && (size_t)n < size; i++)
		n += snprintf(what + n, size - n, "%s%u", i ? "," : "|",
			      ifs->name[i][0] ? if_nametoindex(ifs->name[i]) : 0);
	return port;
}

/*
 * Function name now listens on port on the n interfaces ifnames (n == 0:
 * it stopped): its mDNS announcement follows (gadget_net_sync() asks the
 * supervisor what each worker listens on; a set without the function, the
 * gadget off or gone, and gadgetd's exit withdraw it there). A switch
 * under way syncs once it is over.
 */
static void gadget_listen_announce(struct gadget *g, const char *name,
				   unsigned port, unsigned n)
{
	log_debug("%s: tcp port %u on %u interface%s", name, n ? port : 0, n,
		  n == 1 ? "" : "s");
	if (!g->txn)
		gadget_net_sync(g);
}

static void gadget_listen_one(struct gadget *g, const char *name)
{
	struct gadget_listen_ifs ifs;
	int fds[WMSG_MAX_FDS];
	unsigned i, n = 0, port;
	char what[256];

	port = gadget_listen_plan(g, name, &ifs, what, sizeof(what));
	if (!supervisor_tcp_due(g->sup, name, what))
		return;
	/* Not an error: the function may also be in sets without one. */
	if (port && !ifs.n)
		log_info("%s: not listening on tcp port %u: the set has no "
			 "network function", name, port);
	for (i = 0; i < ifs.n; i++)
		if (tcplisten_open(ifs.name[i][0] ? ifs.name[i] : NULL, port,
				   &fds[n]) == 0)
			n++;
	if (port && n)
		log_info("%s: listening on tcp port %u (%.*s)", name, port,
			 (int)strcspn(strchr(what, '@') + 1, "|"), strchr(what, '@') + 1);
	if (supervisor_tcp_listen(g->sup, name, port, fds, n, what) == 0)
		gadget_listen_announce(g, name, port, n);
}

void gadget_listen(struct gadget *g)
{
	unsigned i;

	if (!composer_bound_udc(g->composer))
		return;
	for (i = 0; i < g->n_live; i++)
		if (g->live[i].fn.type->ffs)
			gadget_listen_one(g, g->live[i].fn.name);
}

void gadget_listen_request(const char *function, void *data)
{
	struct gadget *g = data;

	if (composer_bound_udc(g->composer))
		gadget_listen_one(g, function);
}
