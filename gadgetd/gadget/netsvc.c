/*
 * netsvc: the bound set's network, board side (netsvc.h).
 *
 * Listening sockets are bound to the gadget's own network interfaces,
 * which exist only once the gadget is bound, so they are made after each
 * bind, and when a plugin asks (supervisor_tcp_fn), and handed to the
 * worker only when they differ from what its run has.
 */
#include "netsvc.h"
#include "composer.h"
#include "config.h"
#include "console.h"
#include "console_system.h"
#include "inputfwd.h"
#include "inputmatch.h"
#include "ktype.h"
#include "log.h"
#include "loop.h"
#include "netcfg.h"
#include "plan.h"
#include "plugin_list.h"
#include "profile.h"
#include "supervisor.h"
#include "tcplisten.h"
#include "udc.h"
#include "usblink.h"
#include "wmsg.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The checks after a UDC came or went: 250 ms, doubling: about 4 s in
 * all. */
#define NETSVC_SETTLE_TRIES 4

struct netsvc {
	struct loop *loop;
	struct composer *composer;
	struct supervisor *sup;
	struct usblink *links;
	/* Logins on the bound set's serial ports (console.h). */
	struct console *console;
	/* The board's keyboards and mice forwarded (inputfwd.h). */
	struct inputfwd *input;
	struct loop_watch *settle;
	unsigned settle_tries;
	netsvc_view_fn view_fn;
	void *view_data;
};

struct netsvc_ifs {
	unsigned n;
	char name[WMSG_MAX_FDS][IF_NAMESIZE];
};

static void netsvc_view(struct netsvc *ns, struct netsvc_view *v)
{
	memset(v, 0, sizeof(*v));
	v->set = -1;
	ns->view_fn(v, ns->view_data);
}

/* The bound set's network functions with an address, each with the name
 * the kernel gave its interface. */
static unsigned netsvc_wanted(struct netsvc *ns, const struct netsvc_view *v,
			      struct usblink_want *want)
{
	const struct profile_set *s = &v->profile->sets[v->set];
	unsigned i, n = 0;
	int r;

	for (i = 0; i < s->n_functions; i++) {
		const struct profile_function *f = &v->profile->functions[s->functions[i]];
		struct usblink_want *w = &want[n];

		if (netcfg_get(f, &w->nc) < 0 || !w->nc.has_addr)
			continue;
		snprintf(w->function, sizeof(w->function), "%s", f->name);
		r = composer_net_ifname(ns->composer, f->name, w->ifname, sizeof(w->ifname));
		if (r < 0) {
			log_warnx("function %s: no network interface to configure: %s",
				  f->name, r == -EAGAIN ? "not named by the kernel yet" : strerror(-r));
			continue;
		}
		n++;
	}
	return n;
}

/* The set has a network function with an address. */
static bool netsvc_any(const struct netsvc_view *v)
{
	const struct profile_set *s = &v->profile->sets[v->set];
	struct netcfg nc;
	unsigned i;

	for (i = 0; i < s->n_functions; i++)
		if (!netcfg_get(&v->profile->functions[s->functions[i]], &nc) && nc.has_addr)
			return true;
	return false;
}

/* The services the live functions offer over TCP now: each plugin's
 * declared DNS-SD type (plugin_meta.tcp, "_adb._tcp") on the port its
 * worker listens on, and where it listens (tcp_interface), which decides
 * the link it is announced on. */
static unsigned netsvc_services(struct netsvc *ns, const struct netsvc_view *v,
				struct usblink_service *svc)
{
	const struct profile_function *f;
	const struct plugin_meta *m;
	const char *iface;
	unsigned i, port, n = 0;

	for (i = 0; i < v->n_live && n < PROFILE_MAX_FUNCTIONS; i++) {
		if (!v->live[i].fn.type->ffs)
			continue;
		port = supervisor_tcp_listening(ns->sup, v->live[i].fn.name);
		f = profile_function_find(v->profile, v->live[i].fn.name);
		m = f && f->plugin ? plugin_list_find(f->plugin) : NULL;
		if (!port || !m || !m->tcp)
			continue;
		iface = "";
		supervisor_tcp_port(ns->sup, f->name, &iface);
		snprintf(svc[n].function, sizeof(svc[n].function), "%s", f->name);
		snprintf(svc[n].type, sizeof(svc[n].type), "%s", m->tcp->service);
		snprintf(svc[n].iface, sizeof(svc[n].iface), "%s", iface);
		svc[n++].port = port;
	}
	return n;
}

/* The bound set's serial functions with console = "getty". */
static unsigned netsvc_consoles(struct netsvc *ns, const struct netsvc_view *v,
				struct console_want *want)
{
	const struct profile_set *s = &v->profile->sets[v->set];
	const struct profile_function *f;
	const char *c;
	unsigned i, n = 0;
	int r;

	for (i = 0; i < s->n_functions && n < CONSOLE_MAX; i++) {
		f = &v->profile->functions[s->functions[i]];
		c = f->type->ffs ? NULL : ktype_attr(f, "console");
		if (!c || strcmp(c, "getty"))
			continue;
		r = composer_serial_port(ns->composer, f->type, f->name, &want[n].port);
		if (r < 0) {
			log_warnx("function %s: no console: cannot read its port_num: %s",
				  f->name, strerror(-r));
			continue;
		}
		snprintf(want[n].function, sizeof(want[n].function), "%s", f->name);
		n++;
	}
	return n;
}

/* Logins while the set is bound and its UDC is there; none otherwise. */
static void netsvc_console_sync(struct netsvc *ns, const struct netsvc_view *v)
{
	struct console_want want[CONSOLE_MAX];
	const char *udc = NULL;
	unsigned n = 0;

	if (v->profile && v->set >= 0)
		udc = composer_bound_udc(ns->composer);
	if (udc && udc_registered(udc))
		n = netsvc_consoles(ns, v, want);
	console_sync(ns->console, want, n);
}

static bool netsvc_live(const struct netsvc_view *v, const char *name)
{
	unsigned i;

	for (i = 0; i < v->n_live; i++)
		if (!strcmp(v->live[i].fn.name, name))
			return true;
	return false;
}

/* The bound set's functions with forward = "input", while its UDC is
 * there; none otherwise. */
static void netsvc_input_sync(struct netsvc *ns, const struct netsvc_view *v)
{
	/* 135 KiB, in bss: only the entries filled are written, so that the
	 * rest never becomes gadgetd's memory (clearing all of it at every
	 * sync was 135 KiB of its idle anonymous memory). */
	static struct inputfwd_want want[PROFILE_MAX_FUNCTIONS];
	const struct profile_set *s = NULL;
	const struct profile_function *f;
	const char *udc = NULL, *rules;
	const struct plugin_meta *m;
	unsigned i, n = 0;
	char why[256];
	bool keys;

	if (v->profile && v->set >= 0)
		udc = composer_bound_udc(ns->composer);
	if (udc && udc_registered(udc))
		s = &v->profile->sets[v->set];
	for (i = 0; s && i < s->n_functions; i++) {
		f = &v->profile->functions[s->functions[i]];
		m = f->type->ffs ? plugin_list_find(f->plugin) : NULL;
		/* In the gadget now: while a switch binds the next set, the
		 * view's set is still the last one. */
		if (!inputmatch_forwards(m, f, &keys) || !netsvc_live(v, f->name))
			continue;
		rules = plugin_meta_option(m, profile_option(f, m->input->match), m->input->match);
		memset(&want[n], 0, sizeof(want[n]));
		/* The profile's check parsed them already. */
		if (inputmatch_parse(rules ? rules : INPUTMATCH_DEFAULT, &want[n].match,
				     why, sizeof(why)) < 0)
			continue;
		snprintf(want[n].function, sizeof(want[n].function), "%s", f->name);
		want[n++].keys = keys;
	}
	inputfwd_sync(ns->input, want, n, s ? s->vendor_id : 0, s ? s->product_id : 0);
}

void netsvc_sync(struct netsvc *ns)
{
	struct usblink_want want[PROFILE_MAX_FUNCTIONS];
	struct usblink_service svc[PROFILE_MAX_FUNCTIONS];
	struct netsvc_view v;
	const char *udc = NULL;
	unsigned n = 0, n_svc = 0;

	netsvc_view(ns, &v);
	netsvc_console_sync(ns, &v);
	netsvc_input_sync(ns, &v);
	if (v.profile && v.set >= 0 && netsvc_any(&v))
		udc = composer_bound_udc(ns->composer);
	/* A gadget keeps its UDC's name while the UDC is gone. */
	if (udc && udc_registered(udc)) {
		n = netsvc_wanted(ns, &v, want);
		n_svc = netsvc_services(ns, &v, svc);
	}
	usblink_sync(ns->links, want, n, svc, n_svc);
}

void netsvc_down(struct netsvc *ns)
{
	console_sync(ns->console, NULL, 0);
	inputfwd_sync(ns->input, NULL, 0, 0, 0);
	usblink_sync(ns->links, NULL, 0, NULL, 0);
}

int netsvc_wait_down(struct netsvc *ns, void (*fn)(void *data), void *data)
{
	return ns->console ? console_wait_stopped(ns->console, fn, data) : 0;
}

void netsvc_wait_down_cancel(struct netsvc *ns)
{
	if (ns->console)
		console_wait_cancel(ns->console);
}

static void netsvc_settle(struct loop_watch *w, void *data)
{
	struct netsvc *ns = data;
	struct netsvc_view v;

	loop_watch_remove(w);
	ns->settle = NULL;
	netsvc_view(ns, &v);
	if (!v.switching)
		netsvc_sync(ns);
	if (++ns->settle_tries < NETSVC_SETTLE_TRIES)
		ns->settle = loop_add_timer(ns->loop, 250u << ns->settle_tries,
					    netsvc_settle, ns);
}

void netsvc_udc_changed(struct netsvc *ns)
{
	netsvc_sync(ns);
	loop_watch_remove(ns->settle);
	ns->settle_tries = 0;
	ns->settle = loop_add_timer(ns->loop, 250, netsvc_settle, ns);
}

unsigned netsvc_consoles_list(const struct netsvc *ns, struct console_info *out,
			      unsigned max)
{
	return console_list(ns->console, out, max);
}

unsigned netsvc_shares_list(const struct netsvc *ns, struct uplink_info *out,
			    unsigned max)
{
	return usblink_shares(ns->links, out, max);
}

int netsvc_clash(struct netsvc *ns, const struct profile *p, int set, char *msg,
		 size_t size)
{
	const char *own[PROFILE_MAX_FUNCTIONS];
	unsigned n = usblink_ifaces(ns->links, own, PROFILE_MAX_FUNCTIONS);

	return netcfg_clash(p, set, own, n, msg, size);
}

/* The interfaces of the gadget's network functions, as the kernel named
 * them. */
static void netsvc_ifnames(struct netsvc *ns, const struct netsvc_view *v,
			   struct netsvc_ifs *ifs)
{
	unsigned i;

	ifs->n = 0;
	for (i = 0; i < v->n_live && ifs->n < WMSG_MAX_FDS; i++) {
		if (v->live[i].fn.type->ffs)
			continue;
		if (composer_net_ifname(ns->composer, v->live[i].fn.name,
					ifs->name[ifs->n], IF_NAMESIZE) == 0 &&
		    ifs->name[ifs->n][0])
			ifs->n++;
	}
}

/* Where function name listens, as "PORT@if1,if2|IDX1,IDX2" (what), into
 * ifs. The indexes tell a new interface from a gone one of the same name
 * (rndis,adb to ncm,adb: usb0 both times, adb's worker kept), whose
 * sockets no longer receive anything. */
static unsigned netsvc_listen_plan(struct netsvc *ns, const struct netsvc_view *v,
				   const char *name, struct netsvc_ifs *ifs,
				   char *what, size_t size)
{
	const char *iface = "";
	unsigned port = supervisor_tcp_port(ns->sup, name, &iface);
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
		netsvc_ifnames(ns, v, ifs);
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
 * Function name now listens on port on the n interfaces (n == 0: it
 * stopped): its mDNS announcement follows (netsvc_sync() asks the
 * supervisor what each worker listens on; a set without the function, the
 * gadget off or gone, and gadgetd's exit withdraw it there). A switch
 * under way syncs once it is over.
 */
static void netsvc_listen_one(struct netsvc *ns, const struct netsvc_view *v,
			      const char *name)
{
	struct netsvc_ifs ifs;
	int fds[WMSG_MAX_FDS];
	unsigned i, n = 0, port;
	char what[256];

	port = netsvc_listen_plan(ns, v, name, &ifs, what, sizeof(what));
	if (!supervisor_tcp_due(ns->sup, name, what))
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
	if (supervisor_tcp_listen(ns->sup, name, port, fds, n, what) < 0)
		return;
	log_debug("%s: tcp port %u on %u interface%s", name, n ? port : 0, n,
		  n == 1 ? "" : "s");
	if (!v->switching)
		netsvc_sync(ns);
}

void netsvc_bound(struct netsvc *ns)
{
	struct netsvc_view v;
	unsigned i;

	if (!composer_bound_udc(ns->composer))
		return;
	netsvc_view(ns, &v);
	netsvc_input_sync(ns, &v);
	for (i = 0; i < v.n_live; i++)
		if (v.live[i].fn.type->ffs)
			netsvc_listen_one(ns, &v, v.live[i].fn.name);
}

/* supervisor_tcp_fn: a plugin asked to start or stop listening. */
static void netsvc_listen_request(const char *function, void *data)
{
	struct netsvc *ns = data;
	struct netsvc_view v;

	if (!composer_bound_udc(ns->composer))
		return;
	netsvc_view(ns, &v);
	netsvc_listen_one(ns, &v, function);
}

struct netsvc *netsvc_new(struct loop *l, const struct config *cfg,
			  struct composer *composer, struct supervisor *sup,
			  netsvc_view_fn view, void *data)
{
	struct netsvc *ns = calloc(1, sizeof(*ns));

	if (!ns)
		return NULL;
	ns->loop = l;
	ns->composer = composer;
	ns->sup = sup;
	ns->view_fn = view;
	ns->view_data = data;
	ns->links = usblink_new(l, cfg);
	ns->console = ns->links ? console_system_new(l, cfg) : NULL;
	ns->input = ns->console ? inputfwd_new(l, sup) : NULL;
	if (!ns->input) {
		console_free(ns->console);
		usblink_free(ns->links);
		free(ns);
		return NULL;
	}
	supervisor_tcp_set_fn(sup, netsvc_listen_request, ns);
	return ns;
}

void netsvc_free(struct netsvc *ns)
{
	if (!ns)
		return;
	supervisor_tcp_set_fn(ns->sup, NULL, NULL);
	usblink_free(ns->links);
	console_free(ns->console);
	inputfwd_free(ns->input);
	supervisor_input_set_fn(ns->sup, NULL, NULL);
	loop_watch_remove(ns->settle);
	free(ns);
}
