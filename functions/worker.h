/*
 * worker: the messages between gadgetd and a gadgetd-worker process.
 *
 * gadgetd starts one worker per FunctionFS instance:
 *
 *   gadgetd-worker -P PLUGIN.so -i INSTANCE -d FFS_MOUNT_DIR
 *                  [-u USER] [-g GROUP] [-c CAPS] [-o KEY=VALUE]... [-v]
 *
 * as root, with fd 3 one end of a SOCK_SEQPACKET socketpair. The worker
 * becomes USER (and GROUP, default USER's) keeping the capabilities in
 * the hex mask CAPS (default none) before its plugin starts (sandbox.h). Every datagram starts
 * with struct worker_hdr; len counts the payload after it. Strings in a
 * payload are NUL-terminated and their count follows from len.
 */
#ifndef GADGETD_WORKER_H
#define GADGETD_WORKER_H

#include <stdint.h>

#define WORKER_FD 3
#define WORKER_MSG_MAX 4096
#define WORKER_ERROR_MAX 256

enum worker_msg {
	/* worker -> gadgetd */
	WORKER_READY = 1,    /* descriptors and strings written; no payload */
	WORKER_STATUS = 2,   /* "key\0value\0" */
	WORKER_SWITCH = 3,   /* "request\0": a set or "revert" */
	WORKER_REPLY = 4,    /* u32 id, i32 rc (0 or -errno), "text\0" */
	WORKER_HOST = 5,     /* u32 state: 1 enabled by the host, 0 disabled */
	WORKER_ERROR = 6,    /* "text\0": the worker's last warning or error,
			      * sent once, right before it exits with a
			      * status other than 0 (at most
			      * WORKER_ERROR_MAX bytes with the NUL) */
	WORKER_PONG = 7,     /* u32 seq of the WORKER_PING it answers */
	/* gadgetd -> worker */
	WORKER_COMMAND = 64, /* u32 id, then argv strings "a\0b\0" */
	/* u32 seq: the heartbeat. Answered with WORKER_PONG from the worker's
	 * event loop, so a plugin stuck in a callback does not answer. */
	WORKER_PING = 65,
};

struct worker_hdr {
	uint16_t type;
	uint16_t len;
};

/*
 * Exit status of gadgetd-worker: 0 after SIGTERM/SIGINT, 1 on errors (the
 * plugin's init failed, ep0 refused the descriptors, fd 3 hung up...),
 * 2 for bad arguments, and WORKER_EXIT_BOUND when the instance's gadget
 * is still bound to a UDC: Linux 6.1's f_fs hangs forever in open(ep0) of
 * a no_disconnect instance whose previous worker died while the gadget
 * stayed bound. Unbind the UDC, start the worker again, bind after READY.
 */
#define WORKER_EXIT_BOUND 3

#endif
