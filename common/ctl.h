/*
 * ctl: messages between gadgetctl and gadgetd over the control socket
 * (AF_UNIX, SOCK_SEQPACKET, default /run/gadgetd.sock).
 *
 * Each datagram is struct ctl_hdr followed by len bytes of payload. A
 * request's payload is a list of NUL-terminated strings (its arguments);
 * the reply's payload is struct ctl_reply_body followed by text for the
 * user (NUL-terminated). gadgetd checks every length before it copies a
 * byte and identifies the peer with SO_PEERCRED.
 */
#ifndef GADGETD_CTL_H
#define GADGETD_CTL_H

#include <stddef.h>
#include <stdint.h>

#define CTL_MSG_MAX 65536
#define CTL_DEFAULT_SOCKET RUNDIR "/gadgetd.sock"

enum ctl_type {
	CTL_SWITCH = 1,    /* [set] or "--profile" profile [set] */
	CTL_OFF = 2,       /* no arguments */
	CTL_LIST = 3,      /* no arguments */
	CTL_STATUS = 4,    /* optional "json" */
	CTL_RELOAD = 5,    /* no arguments */
	CTL_FUNCTION = 6,  /* function name, then its command's arguments */
	/* No arguments. Answered with a CTL_REPLY (0: subscribed), then one
	 * CTL_EVENT per event for as long as the connection stays open; a
	 * later CTL_REPLY ends it: 0 when gadgetd stops, -ENOBUFS when the
	 * client fell behind and was dropped. What the client sends after
	 * its CTL_MONITOR is read and ignored: a monitor asks nothing more,
	 * and gets no reply (another request needs another connection). */
	CTL_MONITOR = 7,
	/* No arguments: the reply comes once the start-up is over (its
	 * result: 0 when the start-up set, or the one it fell back to, is
	 * up). */
	CTL_WAIT = 8,
	CTL_STORAGE = 9,   /* "insert"|"eject"|"status", then options (storage.h) */
	CTL_WAKEUP = 10,   /* no arguments: wake the suspended host */
	CTL_LOCK = 11,     /* no arguments: lock the device */
	CTL_UNLOCK = 12,   /* no arguments */
	CTL_REPLY = 128,
	CTL_EVENT = 129,   /* see struct ctl_event */
};

/* Reply status: 0 or a positive errno value, and how gadgetctl exits. */
struct ctl_hdr {
	uint16_t type;
	uint16_t flags;
	uint32_t len;
};

struct ctl_reply_body {
	int32_t status;   /* 0 or -errno */
};

/* gadgetctl exit codes. */
enum ctl_exit {
	CTL_EXIT_OK = 0,
	CTL_EXIT_FAILED = 1,      /* gadgetd tried and failed (rolled back) */
	CTL_EXIT_USAGE = 2,       /* bad command line */
	CTL_EXIT_NO_DAEMON = 3,   /* cannot reach gadgetd */
	CTL_EXIT_DENIED = 4,      /* not root and not in the configured group */
	CTL_EXIT_INVALID = 5,     /* unknown function, set not allowed, bad file */
	CTL_EXIT_BUSY = 6,        /* the queue of switches is full */
	CTL_EXIT_TIMEOUT = 7,     /* wait --timeout ran out */
};

/*
 * The codec, used by both ends (gadgetctl.c and control.c). Builders
 * return the datagram's length; parsers check the header and every
 * length before they hand out a pointer into buf.
 */

/* Split a payload of NUL-terminated strings into argv (at most max).
 * Returns the count or -EINVAL if the payload is not such a list. */
int ctl_parse_args(const char *payload, uint32_t len, char **argv, int max);

/* A request of type with argc arguments. -E2BIG when it exceeds size. */
int ctl_build_request(char *buf, size_t size, uint16_t type, int argc,
		      char *const *argv);

/*
 * A request datagram of n bytes: sets *h (when n holds one) and argv (at
 * most max, into buf) and returns the count; -EBADMSG when the header is
 * short or its length does not match n, -EINVAL when the arguments are
 * not NUL-terminated strings or more than max.
 */
int ctl_parse_request(char *buf, size_t n, struct ctl_hdr *h, char **argv, int max);

/* A reply: status and text (len bytes, cut to fit CTL_MSG_MAX and size,
 * sent with a NUL). -EMSGSIZE when size cannot hold even an empty one. */
int ctl_build_reply(char *buf, size_t size, int32_t status, const char *text,
		    size_t len);

/* A reply datagram of n bytes: sets *status and *text (NUL-terminated,
 * into buf). -EBADMSG when it is not a well-formed CTL_REPLY. */
int ctl_parse_reply(const char *buf, size_t n, int32_t *status,
		    const char **text);

/*
 * An event (gadgetd/model/event.h) as a monitor receives it: its payload is
 * five NUL-terminated strings: kind ("switch-done"...), function ("" for
 * none), detail, code and the time in milliseconds since the epoch (both
 * decimal). The pointers point into the datagram.
 */
struct ctl_event {
	const char *kind;
	const char *function;
	const char *detail;
	int32_t code;
	int64_t time_ms;
};

/* -E2BIG when it does not fit in size (a detail is cut to fit first). */
int ctl_build_event(char *buf, size_t size, const struct ctl_event *ev);
/* -EBADMSG when buf is not a well-formed CTL_EVENT. */
int ctl_parse_event(char *buf, size_t n, struct ctl_event *ev);

#endif
