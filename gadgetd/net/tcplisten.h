/*
 * tcplisten: the listening TCP sockets gadgetd makes for a worker (adb
 * over TCP), so the sandboxed worker only accepts: it never chooses an
 * address or an interface.
 */
#ifndef GADGETD_TCPLISTEN_H
#define GADGETD_TCPLISTEN_H

/*
 * A non-blocking, close-on-exec socket listening on port, IPv6 and IPv4
 * (dual stack; IPv4 only where the kernel has no IPv6), bound to the
 * interface ifname (SO_BINDTODEVICE), or to every interface when ifname
 * is NULL. SO_REUSEPORT, since the worker may still hold the socket this
 * one replaces. 0 with *fd set, or -errno (logged, naming ifname and port).
 */
int tcplisten_open(const char *ifname, unsigned port, int *fd);

#endif
