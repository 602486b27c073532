/*
 * mdns: gadgetd-mdns, the helper that announces one name or one service
 * over mDNS on one network interface, through avahi-daemon's D-Bus API
 * (org.freedesktop.Avahi). gadgetd runs it for each USB network link with
 * an mDNS name and for each service a function offers over TCP
 * (usblink.h), supervised like any helper (netproc.h):
 *
 *   gadgetd-mdns --interface IFNAME --address NAME ADDRESS
 *       NAME (gadgetd.local) -> ADDRESS, IPv4 or IPv6, with no reverse
 *       (PTR) record: avahi-daemon publishes the address's own under the
 *       board's host name. A name another host has on that link is not
 *       renamed: the helper exits 1, so that NAME.local never points at
 *       another board.
 *   gadgetd-mdns --interface IFNAME --service NAME TYPE PORT [--host HOST]
 *       a DNS-SD service (adb-gadgetd, _adb._tcp, 5555) on HOST
 *       (gadgetd.local; avahi-daemon's own host name without --host). A
 *       service name taken on the link is replaced by avahi's alternative
 *       ("adb-gadgetd #2"), as avahi-publish does.
 *
 * avahi-publish has no interface option: avahi-daemon announces what it
 * publishes on every interface, the board's LAN included. gadgetd-mdns
 * gives avahi-daemon the interface's index, over both IPv4 and IPv6
 * mDNS, so that the LAN never learns a name for a USB link's address or
 * a service that listens on the USB link only.
 *
 * Once avahi-daemon has probed and announced it, the helper says
 * MDNS_READY_TEXT on its standard error, as avahi-publish does (netproc
 * restarts a helper that does not: avahi #383). It runs until SIGTERM or
 * SIGINT (exit 0). It exits 1 when avahi-daemon is not on the system bus
 * or leaves it, when the interface does not exist, when avahi-daemon
 * refuses or fails the announcement, and on a collision of the address's
 * name; 2 on a bad command line.
 */
#ifndef GADGETD_MDNS_H
#define GADGETD_MDNS_H

/* What the helper says on its standard error once established. */
#define MDNS_READY_TEXT "Established under name"

#define MDNS_EXIT_FAIL 1
#define MDNS_EXIT_USAGE 2

/* The helper's whole run, argv as above: its exit code. gadgetd-mdns's
 * main() (mdns_main.c) is this alone; test_mdns runs it in a child. */
int mdns_main(int argc, char **argv);

/* avahi's public constants (avahi-common/defs.h, avahi-common/address.h),
 * which its D-Bus API takes as numbers. */
#define MDNS_AVAHI_PROTO_UNSPEC (-1)
#define MDNS_AVAHI_PUBLISH_NO_REVERSE 16u
enum mdns_avahi_group_state {
	MDNS_AVAHI_GROUP_UNCOMMITED,
	MDNS_AVAHI_GROUP_REGISTERING,
	MDNS_AVAHI_GROUP_ESTABLISHED,
	MDNS_AVAHI_GROUP_COLLISION,
	MDNS_AVAHI_GROUP_FAILURE,
};
enum mdns_avahi_server_state {
	MDNS_AVAHI_SERVER_INVALID,
	MDNS_AVAHI_SERVER_REGISTERING,
	MDNS_AVAHI_SERVER_RUNNING,
	MDNS_AVAHI_SERVER_COLLISION,
	MDNS_AVAHI_SERVER_FAILURE,
};

#endif
