/*
 * netsvc: the board's side of the bound set's network, as one object:
 * the links of its network functions (usblink.h: address, DHCP, mDNS),
 * the listening TCP sockets of plugins with TCP (adb over the network)
 * and the services they announce, and the checks again while a UDC comes
 * or goes; and the logins on its serial ports (console = "getty",
 * console.h), which follow the same syncs.
 *
 * It knows nothing of the gadget's transaction: it asks its owner for a
 * view (the active profile and set, the live functions, whether a switch
 * is under way) whenever it syncs, and is told when the gadget was bound
 * (netsvc_bound()) or a UDC changed (netsvc_udc_changed()).
 */
#ifndef GADGETD_NETSVC_H
#define GADGETD_NETSVC_H

#include <stdbool.h>
#include <stddef.h>

struct composer;
struct config;
struct loop;
struct plan_live;
struct profile;
struct supervisor;
struct netsvc;

/* What the owner has now. */
struct netsvc_view {
	const struct profile *profile; /* NULL: none */
	int set;                       /* -1: off */
	const struct plan_live *live;  /* the functions in the gadget */
	unsigned n_live;
	bool switching;                /* a transaction is under way */
};
typedef void (*netsvc_view_fn)(struct netsvc_view *v, void *data);

/* NULL with errno set. It takes the supervisor's TCP requests
 * (supervisor_tcp_set_fn()). */
struct netsvc *netsvc_new(struct loop *l, const struct config *cfg,
			  struct composer *composer, struct supervisor *sup,
			  netsvc_view_fn view, void *data);
/* Links down, helpers stopped (usblink_free()). NULL is fine. */
void netsvc_free(struct netsvc *ns);

/* Make the links match the view: up for the bound set's network
 * functions while the UDC is there, down otherwise. */
void netsvc_sync(struct netsvc *ns);
/* Every link down now (a teardown), whatever the view says. */
void netsvc_down(struct netsvc *ns);
/* Before an unbind: 0 when every serial port's login is stopped, else
 * -EINPROGRESS and fn(data) follows from the loop once they are (the
 * backend's deadline bounds the wait; console.h). One waiter;
 * netsvc_wait_down_cancel() forgets it. */
int netsvc_wait_down(struct netsvc *ns, void (*fn)(void *data), void *data);
void netsvc_wait_down_cancel(struct netsvc *ns);
/* A UDC came or went: sync now and a few times over the next seconds, as
 * its uevent comes before its gadget device is there (or gone). */
void netsvc_udc_changed(struct netsvc *ns);
/* After a bind: hand each function with TCP its listening sockets, bound
 * to the gadget's network interfaces, if they changed. */
void netsvc_bound(struct netsvc *ns);
struct console_info;
/* The logins on the set's serial ports now (console_list()). */
unsigned netsvc_consoles_list(const struct netsvc *ns, struct console_info *out,
			      unsigned max);
struct uplink_info;
/* The links sharing the board's uplink now (usblink_shares()). */
unsigned netsvc_shares_list(const struct netsvc *ns, struct uplink_info *out,
			    unsigned max);
/* Refuse set (-1: every set) of p when a network function's subnet
 * clashes with another interface of the board: -EADDRINUSE, msg with
 * FILE:LINE and the other interface. */
int netsvc_clash(struct netsvc *ns, const struct profile *p, int set, char *msg,
		 size_t size);

#endif
