/*
 * usblink: the board's side of the gadget's USB network links, live.
 *
 * For each network function of the bound set that has an address
 * (netcfg.h), usblink_sync() puts the address on its interface and sets
 * it up (IPv6 link-local stays on: disable_ipv6 is cleared), starts a
 * dnsmasq serving the host one lease when dhcp is on, and a
 * gadgetd-mdns announcing NAME.local on that link's interface only when
 * mdns_name is set (mdns.h), and shares the board's uplink with the host
 * when uplink is set (uplink.h). Both helpers are supervised (netproc.h). Whatever is
 * not wanted any more goes: the helpers are stopped and the address
 * removed. A service a function offers over TCP (adb's "_adb._tcp") is
 * announced by another gadgetd-mdns on the link whose mDNS name it
 * points at, and on that link's interface only, while it is wanted and
 * such a name is live: the first live link with a name, or, when the
 * function's tcp_interface names a gadget link, that one; a service
 * listening on another interface only is not announced. The board's LAN
 * learns neither. gadgetd calls it after
 * every transaction, when the UDC comes or goes, and with nothing wanted
 * before it unbinds the gadget (switch, off) and when it stops.
 *
 * Run-time files in run_dir: net-FUNCTION.addr ("IFNAME A.B.C.D/N"),
 * net-FUNCTION-dnsmasq.pid, net-FUNCTION-mdns.pid, the lease file
 * net-FUNCTION.leases and net-service-FUNCTION.pid for a service. usblink_new() cleans what a crashed gadgetd left.
 */
#ifndef GADGETD_NETLINK_H
#define GADGETD_NETLINK_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#include "netcfg.h"
#include "profile.h"

struct loop;
struct config;
struct usblink;

/* One link as gadgetd wants it now. */
struct usblink_want {
	char function[PROFILE_NAME_MAX];
	char ifname[NETCFG_IFNAME_MAX]; /* the kernel's name, read back */
	struct netcfg nc;
};

struct usblink *usblink_new(struct loop *l, const struct config *cfg);
/* Everything down at once (helpers killed and reaped, addresses gone). */
void usblink_free(struct usblink *nl);

/* A service a function offers on TCP, for mDNS. */
struct usblink_service {
	char function[PROFILE_NAME_MAX];
	char type[PROFILE_NAME_MAX + 8]; /* "_adb._tcp" */
	unsigned port;
	/* Where it listens, as the profile's tcp_interface says: "" for
	 * each gadget link, "*" for every interface, or one interface. */
	char iface[NETCFG_IFNAME_MAX];
};

/* Make want (n entries; NULL when 0) the live links, and nothing else;
 * then the same for the announced services (svc, n_svc). */
void usblink_sync(struct usblink *nl, const struct usblink_want *want,
		  unsigned n, const struct usblink_service *svc,
		  unsigned n_svc);

/* The names of the live links' interfaces (up to max), for
 * netcfg_clash()'s ignore list; returns how many. */
unsigned usblink_ifaces(const struct usblink *nl, const char **names,
			unsigned max);

struct uplink_info;
/* The links sharing the board's uplink now (uplink.h), up to max. */
unsigned usblink_shares(const struct usblink *nl, struct uplink_info *out,
			unsigned max);

#endif
