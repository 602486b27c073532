/*
 * uplink: the board's connection shared with the PC over a USB network
 * link (a network function's `uplink = "IFNAME"` or "any", netcfg.h).
 *
 * For each link that shares, gadgetd keeps one nftables table of its own,
 * `inet gadgetd` (UPLINK_TABLE), through libnftables:
 *   - a forward chain: the link's subnet from the link out of the uplink
 *     accepted, the uplink's answers back (ct state established,related)
 *     accepted, anything else from or to the link dropped, and anything
 *     else forwarded from an uplink whose forwarding gadgetd turned on
 *     dropped (the uplink must not become a way into the board's other
 *     networks);
 *   - a postrouting nat chain: the link's subnet masqueraded out of the
 *     uplink.
 * IPv4 forwarding is turned on per interface (rtnetlink, rtnl.h), on the
 * link and the uplink only, where it was off; what gadgetd turned on is
 * recorded in run_dir/uplink-forwarding before it is, and turned off
 * again when no share needs it. The table is replaced in one nftables
 * transaction; a share that cannot be set up (no such uplink, libnftables
 * refusing the table, forwarding refused) leaves neither table nor
 * forwarding behind and is reported as failed, with why.
 *
 * "any": every interface the board has when the share starts, but lo and
 * USB gadget interfaces.
 */
#ifndef GADGETD_UPLINK_H
#define GADGETD_UPLINK_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#include "netcfg.h"
#include "profile.h"

#define UPLINK_TABLE "gadgetd"
/* Interfaces one ruleset names: the links and the uplinks, "any"'s too. */
#define UPLINK_IFACES_MAX 64

struct uplink;

/* One link sharing the board's uplink. */
struct uplink_share {
	char function[PROFILE_NAME_MAX];
	char link[NETCFG_IFNAME_MAX];   /* the gadget's interface, "usb0" */
	struct in_addr addr;            /* the board's address on it */
	unsigned prefix;
	char uplink[NETCFG_IFNAME_MAX]; /* "eth0", or "any" */
};

/* What `gadgetctl status` shows of a share. */
enum uplink_state { UPLINK_ON, UPLINK_FAILED };
struct uplink_info {
	char function[PROFILE_NAME_MAX];
	char link[NETCFG_IFNAME_MAX];
	char uplink[NETCFG_IFNAME_MAX];
	enum uplink_state state;
	char why[160]; /* "" when on */
};

/*
 * The nft text of the table for n shares (none: only the table's
 * removal), each "any" uplink given as the interfaces in any_ifaces
 * (n_any), and the uplinks in opened (n_opened) whose forwarding gadgetd
 * turned on. It replaces any table of that name in one transaction.
 * 0, or -EINVAL with why (an interface name that is not one, a prefix out
 * of 8..30) or -ENOSPC; buf is then "".
 */
int uplink_ruleset(const struct uplink_share *s, unsigned n,
		   const char *const *any_ifaces, unsigned n_any,
		   const char *const *opened, unsigned n_opened,
		   char *buf, size_t size, char *why, size_t wsize);

/* An interface name nft may be given quoted: 1..15 of a-z, A-Z, 0-9 and
 * "_.-". */
bool uplink_ifname_ok(const char *name);

/* Removes what a crashed gadgetd left: its table and the forwarding
 * run_dir/uplink-forwarding records. NULL with errno set. */
struct uplink *uplink_new(const char *run_dir);
/* Every share taken away. NULL is fine. */
void uplink_free(struct uplink *u);

/* Make s (n of them) the shares, and nothing else. Each is then on or
 * failed (uplink_list()); failures are logged once. */
void uplink_sync(struct uplink *u, const struct uplink_share *s, unsigned n);

/* The shares now, up to max. */
unsigned uplink_list(const struct uplink *u, struct uplink_info *out, unsigned max);

#endif
