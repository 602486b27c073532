/*
 * wmsg: the messages between gadgetd and a gadgetd-worker process, and
 * their codec, used by both ends (gadgetd/supervisor/supervisor.c and
 * functions/runtime/worker.c).
 *
 * gadgetd starts one worker per FunctionFS instance:
 *
 *   gadgetd-worker -P PLUGIN.so -i INSTANCE -d FFS_MOUNT_DIR
 *                  [-u USER] [-g GROUP] [-c CAPS] [-r allowed|active]
 *                  [-o KEY=VALUE]... [-v] [-l]
 *
 * as root, with fd 3 one end of a SOCK_SEQPACKET socketpair. The worker
 * becomes USER (and GROUP, default USER's) keeping the capabilities in
 * the hex mask CAPS (default none) before its plugin starts (sandbox.h).
 * -r allowed: the profile lets the function ask for root (WORKER_ROOT);
 * -r active: this worker is that root restart (USER root, every
 * capability). Every datagram starts
 * with struct wmsg_hdr; len counts the payload after it. Strings in a
 * payload are NUL-terminated and their count follows from len.
 */
#ifndef GADGETD_WMSG_H
#define GADGETD_WMSG_H

#include <stdbool.h>
#include <stddef.h>
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
	WORKER_HOST_SEEN = 8, /* no payload: a host sent the function a
			       * control request (once a run; ENABLE is
			       * WORKER_HOST). Exits after it are the
			       * host's doing (gadgetd(8), crash loops). */
	/* u32 1: restart me as root, 0: as the profile's user again. Only
	 * for a function whose profile has root = "allowed"; gadgetd checks
	 * that itself and ignores any other. */
	WORKER_ROOT = 9,
	/* u32 port: listen on TCP port (`adb tcpip PORT`), 0: stop (`adb
	 * usb`). Only for a function whose profile has tcpip = true;
	 * gadgetd checks that itself and answers with WORKER_LISTEN. */
	WORKER_TCP = 10,
	/*
	 * u32 id, "line\0": append line to the function's keys file (its
	 * profile's `keys`), for command id, an `allow` still waiting for its
	 * reply (`gadgetctl adb allow`). The file is root's, so that neither
	 * the worker's user nor the adb shells running as that user can write
	 * it; gadgetd checks the command and the line itself, appends at most
	 * one line a command and answers with WORKER_KEY_DONE.
	 */
	WORKER_KEY = 11,
	/* u32 1: the host suspended the bus (FUNCTIONFS_SUSPEND), 0: it
	 * resumed it. gadgetd shows it and ends a `gadgetctl wakeup`. */
	WORKER_BUS = 12,
	/* No payload: wake the suspended host (plugin_wakeup(): a HID
	 * report waits). The worker cannot write the UDC's srp file itself
	 * (its sandbox); gadgetd checks the set's remote_wakeup and the bus
	 * and answers with WORKER_WAKEUP_DONE. */
	WORKER_WAKEUP = 13,
	/* u32 WMSG_GRAB_RELEASE, _TAKE or _TOGGLE: the plugin asks that the
	 * local input devices forwarded to the set (forward = "input") be
	 * released to the board, or taken again (its hotkey, its command).
	 * gadgetd obeys only a function that forwards, and tells every
	 * forwarding worker the outcome (WORKER_INPUT_STATE). */
	WORKER_INPUT_GRAB = 14,
	/* gadgetd -> worker */
	WORKER_COMMAND = 64, /* u32 id, then argv strings "a\0b\0" */
	/* u32 seq: the heartbeat. Answered with WORKER_PONG from the worker's
	 * event loop, so a plugin stuck in a callback does not answer. */
	WORKER_PING = 65,
	/*
	 * u32 port, then at most WMSG_MAX_FDS listening TCP sockets as
	 * SCM_RIGHTS, one per network interface the function listens on
	 * (none: stop listening). gadgetd made and bound them; the worker
	 * only accepts. Replaces the sockets of an earlier WORKER_LISTEN.
	 */
	WORKER_LISTEN = 66,
	/* u32 id, i32 rc: what became of the WORKER_KEY of command id (0:
	 * the line is on disk, or -errno). */
	WORKER_KEY_DONE = 67,
	/* u32: an i32 0 (the UDC was told to signal remote wakeup) or
	 * -errno (why not: gadgetd(8)), the answer to WORKER_WAKEUP. */
	WORKER_WAKEUP_DONE = 68,
	/*
	 * u32 1: the device is locked (`gadgetctl lock`), 0: unlocked. Sent
	 * to every running worker at each change; a worker learns the state
	 * at its start from its command line (-l, wargv.h), and a plugin
	 * from the runtime (plugin_locked(), ops->lock).
	 */
	WORKER_LOCK = 69,
	/*
	 * u32 id, u32 grabbed (0 or 1), "label\0", and one evdev fd as
	 * SCM_RIGHTS: a local input device gadgetd opened (and grabbed, when
	 * grabbed) for this function to forward (inputfwd.h). id names it
	 * in WORKER_INPUT_GONE; label ("event5 Logitech K120") is for status.
	 */
	WORKER_INPUT = 70,
	/* u32 id: the device went (unplugged, the set switched away):
	 * close it. */
	WORKER_INPUT_GONE = 71,
	/* u32 0 or 1: the forwarded devices are now released to the board
	 * (0) or grabbed (1). */
	WORKER_INPUT_STATE = 72,
};

/* WORKER_INPUT_GRAB's requests. */
#define WMSG_GRAB_RELEASE 0
#define WMSG_GRAB_TAKE 1
#define WMSG_GRAB_TOGGLE 2
/* A WORKER_INPUT label's longest, with its NUL. */
#define WMSG_INPUT_LABEL_MAX 128

/* Most fds one WORKER_LISTEN carries. */
#define WMSG_MAX_FDS 8

struct wmsg_hdr {
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


/* Most arguments a WORKER_COMMAND may carry. */
#define WMSG_MAX_ARGS 32

/*
 * Check one received datagram of n bytes: a header whose len matches the
 * rest. Returns 0 with *type, *payload and *len set, or -EBADMSG.
 */
int wmsg_parse(uint8_t *buf, size_t n, uint16_t *type, uint8_t **payload,
	       size_t *len);

/*
 * Split a WORKER_COMMAND payload into its id and argv (pointing into p,
 * argv[argc] = NULL). Returns 0, -EBADMSG when the id is missing or the
 * last string is not NUL-terminated, -E2BIG for more than WMSG_MAX_ARGS.
 */
int wmsg_parse_command(uint8_t *p, size_t len, uint32_t *id,
		       char *argv[WMSG_MAX_ARGS + 1], int *argc);

/* A u32 payload (WORKER_PING): exactly 4 bytes, else -EBADMSG. */
int wmsg_parse_u32(const uint8_t *p, size_t len, uint32_t *v);

/*
 * Build a message of type with n strings (each sent with its NUL) into
 * buf. Returns the datagram length or -EMSGSIZE.
 */
int wmsg_build_strings(uint8_t *buf, size_t size, uint16_t type,
		       const char *const *strs, unsigned n);

/* WORKER_REPLY: id, rc, text (cut to fit WORKER_MSG_MAX). */
int wmsg_build_reply(uint8_t *buf, size_t size, uint32_t id, int32_t rc,
		     const char *text);

/* WORKER_COMMAND: id and argc strings. -E2BIG when they do not fit. */
int wmsg_build_command(uint8_t *buf, size_t size, uint32_t id, int argc,
		       char *const *argv);

/*
 * A payload of NUL-terminated strings (WORKER_STATUS, WORKER_SWITCH):
 * at most max into strs, pointing into p. Returns the count, -EBADMSG
 * when the last is not terminated, -E2BIG when there are more than max.
 */
int wmsg_parse_strings(uint8_t *p, size_t len, char **strs, int max);

/* WORKER_REPLY: id, rc and the NUL-terminated text (into p), else
 * -EBADMSG. */
int wmsg_parse_reply(uint8_t *p, size_t len, uint32_t *id, int32_t *rc,
		     const char **text);

/* WORKER_HOST: whether the host enabled the function, a u32 0 or 1 in
 * the host's byte order like every u32 here. -EBADMSG for anything else. */
int wmsg_build_host(uint8_t *buf, size_t size, bool enabled);
int wmsg_parse_host(const uint8_t *p, size_t len, bool *enabled);

/* WORKER_LOCK: a u32 0 or 1 (built with wmsg_build_u32()); -EBADMSG for
 * anything else. */
int wmsg_parse_lock(const uint8_t *p, size_t len, bool *locked);

/* WORKER_KEY: the command's id and one line (no NUL inside).
 * -EMSGSIZE when it does not fit. */
int wmsg_build_key(uint8_t *buf, size_t size, uint32_t id, const char *line);
/* WORKER_KEY: id and the line (into p), NUL-terminated with no NUL
 * before its end, else -EBADMSG. */
int wmsg_parse_key(uint8_t *p, size_t len, uint32_t *id, const char **line);
/* WORKER_KEY_DONE: id and rc; its payload is exactly 8 bytes. */
int wmsg_build_key_done(uint8_t *buf, size_t size, uint32_t id, int32_t rc);
int wmsg_parse_key_done(const uint8_t *p, size_t len, uint32_t *id,
			int32_t *rc);

/* WORKER_INPUT: id, grabbed and label (at most WMSG_INPUT_LABEL_MAX
 * with its NUL; cut to fit). */
int wmsg_build_input(uint8_t *buf, size_t size, uint32_t id, bool grabbed,
		     const char *label);
/* WORKER_INPUT: id, grabbed (0 or 1) and the label (into p), NUL-terminated
 * with no NUL before its end and at most WMSG_INPUT_LABEL_MAX, else
 * -EBADMSG. */
int wmsg_parse_input(uint8_t *p, size_t len, uint32_t *id, bool *grabbed,
		     const char **label);

/* A message with a u32 payload (WORKER_HOST, WORKER_PONG) or none (len 0). */
int wmsg_build_u32(uint8_t *buf, size_t size, uint16_t type, uint32_t v);
int wmsg_build_empty(uint8_t *buf, size_t size, uint16_t type);

#endif
