/*
 * adb_forward: socket services.
 *
 *   tcp:PORT, tcp:HOST:PORT, localabstract:NAME, localfilesystem:PATH,
 *   localreserved:NAME       connect on the device (adb forward)
 *   reverse:forward:[norebind:]LOCAL;REMOTE, reverse:killforward:LOCAL,
 *   reverse:killforward-all, reverse:list-forward
 *                            listen on the device and open REMOTE on the
 *                            host for each connection (adb reverse)
 *
 * Reverse listeners bind to the loopback address only (adbd binds to any):
 * a reverse port is for programs on the device, not for its network.
 *
 * reverse: replies follow adbd: "OKAY", or "FAIL" + 4 hex digits of length
 * + message; list-forward sends hex4 length + one line per listener.
 */
#ifndef GADGETD_ADB_FORWARD_H
#define GADGETD_ADB_FORWARD_H

#include "adb_stream.h"

struct adb_forward;

struct loop;

struct adb_forward *adb_forward_new(struct adb_stream_mux *t,
				    struct loop *loop);
/* Drop every reverse listener (a new connection starts with none). */
void adb_forward_reset(struct adb_forward *f);
void adb_forward_free(struct adb_forward *f);

/* Open a connecting service; -ENOENT when name is not one. */
int adb_forward_open(struct adb_forward *f, struct adb_stream *s,
		     const char *name, const struct adb_service_ops **ops,
		     void **svc);

/*
 * A reverse: command (name without "reverse:"): fills reply with what to
 * send back and returns its length.
 */
int adb_forward_reverse(struct adb_forward *f, const char *cmd, char *reply,
			size_t size);

/* Parse "tcp:PORT" / "localabstract:NAME" / ... into a sockaddr;
 * returns the address length or -errno. */
struct sockaddr_storage;
int adb_forward_addr(const char *spec, struct sockaddr_storage *ss);

#endif
