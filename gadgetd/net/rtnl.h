/*
 * rtnl: the few rtnetlink requests gadgetd makes, through libmnl: an IPv4
 * address on an interface, added or removed, an interface set up, and
 * its IPv4 forwarding.
 *
 * Each call opens a NETLINK_ROUTE socket, sends one request with
 * NLM_F_ACK and reads the kernel's answer with a receive timeout of
 * RTNL_TIMEOUT_MS, then closes it: a call never blocks gadgetd's loop for
 * longer than that, and no netlink fd outlives it. All return 0 or
 * -errno (the kernel's answer, -ETIMEDOUT, or -ENODEV for an unknown
 * interface).
 */
#ifndef GADGETD_RTNL_H
#define GADGETD_RTNL_H

#include <netinet/in.h>
#include <stdbool.h>

#define RTNL_TIMEOUT_MS 1000

/* Add addr/prefix (with its broadcast address) to ifname; an address
 * already there is fine. */
int rtnl_addr_add(const char *ifname, struct in_addr addr, unsigned prefix);
/* Remove it; an interface or address already gone is fine. */
int rtnl_addr_del(const char *ifname, struct in_addr addr, unsigned prefix);
/* Whether ifname carries addr/prefix now (false also on any error). */
bool rtnl_addr_has(const char *ifname, struct in_addr addr, unsigned prefix);
/* Set ifname up (IFF_UP), or down. */
int rtnl_link_up(const char *ifname);
int rtnl_link_down(const char *ifname);
/* IPv4 forwarding of what ifname receives on (on) or off: its devconf
 * "forwarding", which /proc/sys/net/ipv4/conf/IFNAME/forwarding shows,
 * set through RTM_NEWLINK's IFLA_AF_SPEC, as the unit's
 * ProtectKernelTunables= keeps /proc/sys read-only. */
int rtnl_link_forwarding(const char *ifname, bool on);

#endif
