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
	CTL_STORAGE = 8,   /* "insert"|"eject"|"status", then options (storage.h) */
	CTL_REPLY = 128,
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
	CTL_EXIT_BUSY = 6,        /* another switch is running */
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

#endif
