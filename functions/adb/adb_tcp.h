/*
 * adb_tcp: adb over TCP, in the adb worker, next to USB. gadgetd makes
 * and binds the listening sockets (by default one per network interface
 * of the gadget, SO_BINDTODEVICE) and hands them over (plugin.h,
 * ops->listen); this module only accepts. Each peer gets a connection of
 * its own (adb.h) with the same authentication and keys file as USB.
 *
 * A peer is as hostile as a USB host: at most ADB_TCP_MAX_PEERS at once,
 * ADB_TCP_PREAUTH_BYTES and the profile's tcp_auth_timeout until it is
 * authorized, ADB_TCP_IDLE_S without traffic or streams once it is, and a
 * broken message header ends it.
 */
#ifndef GADGETD_ADB_TCP_H
#define GADGETD_ADB_TCP_H

#include <stdbool.h>
#include <stddef.h>

#include "adb_stream.h"

#define ADB_TCP_MAX_PEERS 4
/* What an unauthorized peer may send: a CNXN, and sixteen rounds of
 * signatures and public keys (adb.c's token limit), with room to spare. */
#define ADB_TCP_PREAUTH_BYTES (64 * 1024)
#define ADB_TCP_IDLE_S (15 * 60)

struct adb;
struct adb_tcp;
struct plugin;

/* The TCP side of main's plugin, listening on nothing yet, in *out.
 * Reads the options tcpip, tcp and tcp_auth_timeout. 0; or -ENOMEM, or
 * -EINVAL for an option that is wrong (logged), with *out NULL. */
int adb_tcp_new(struct plugin *p, struct adb *main, struct adb_tcp **out);
/* Close the listeners and every peer. t may be NULL. */
void adb_tcp_free(struct adb_tcp *t);

/*
 * gadgetd's sockets for port (ops->listen): they replace the listeners
 * t had. n == 0: stop listening and close every peer once what was
 * queued for it is sent (`adb usb`).
 */
void adb_tcp_listen(struct adb_tcp *t, const int *fds, unsigned n,
		    unsigned port);

/*
 * The services "tcpip:PORT" and "usb:" (the host's `adb tcpip PORT` and
 * `adb usb`): ask gadgetd to listen on PORT, or to stop, when the profile
 * allows it (tcpip = true), and answer the host as adbd does. A PORT
 * below 1024 is refused (the host is told why) unless it is the
 * profile's tcp: gadgetd binds as root, and would take the port from a
 * board service that binds it later.
 * -ENOENT for any other service name.
 */
int adb_tcp_open(struct adb_tcp *t, const char *name,
		 const struct adb_service_ops **ops, void **svc);

/* Call fn for each peer's connection. */
typedef void (*adb_tcp_each_fn)(struct adb *c, void *data);
void adb_tcp_foreach(struct adb_tcp *t, adb_tcp_each_fn fn, void *data);

#endif
