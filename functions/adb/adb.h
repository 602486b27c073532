/*
 * adb: the connection core (CNXN, AUTH, OPEN routing) as its transports
 * see it. The USB transport is adb.c's own (the bulk endpoints); every
 * other (adb_tcp.c) attaches a connection of its own, with its own
 * streams, forwards and authentication, and feeds it what its peer sends.
 */
#ifndef GADGETD_ADB_H
#define GADGETD_ADB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct adb;
struct plugin;

/* How a connection's messages leave. Each returns 0 or -errno. */
struct adb_transport {
	/* Queue len bytes (copied). A header and its payload are queued
	 * by two calls, the header first. */
	int (*write)(void *t, const void *buf, size_t len);
	/* Queue a plugin_buf_alloc() buffer, which it takes whatever it
	 * returns. */
	int (*write_buf)(void *t, void *buf, size_t len);
	/* Bytes queued and not yet sent: streams wait above PLUGIN_TX_HIGH. */
	size_t (*queued)(void *t);
};

/*
 * A connection of main's plugin over transport tr (tr_data its first
 * argument), with main's options and keys file, offline until its peer
 * sends CNXN. NULL when out of memory.
 */
struct adb *adb_attach(struct adb *main, const struct adb_transport *tr,
		       void *tr_data);
/* Close every stream of c and free it. */
void adb_detach(struct adb *c);
/*
 * Bytes c's peer sent. -EBADMSG or -EMSGSIZE: the framing broke, and the
 * transport should drop the peer (c has been reset).
 */
int adb_feed(struct adb *c, const uint8_t *buf, size_t len);
/*
 * Or in place: where the rest of a payload whose header is in may be
 * received, at most *len bytes (NULL when a header is wanted: use
 * adb_feed), then adb_feed_filled with how many came; errors as
 * adb_feed's, and -EINVAL for more than *len.
 */
uint8_t *adb_feed_room(struct adb *c, size_t *len);
int adb_feed_filled(struct adb *c, size_t n);
/* c's transport has room again: streams may send. */
void adb_pump(struct adb *c);
/* Whether c's peer is authorized (state "device"). */
bool adb_online(const struct adb *c);
/* Streams open on c. */
unsigned adb_streams(const struct adb *c);

#endif
