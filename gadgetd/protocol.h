/*
 * protocol: messages between gadgetctl and gadgetd over the control socket
 * (AF_UNIX, SOCK_SEQPACKET, default /run/gadgetd.sock).
 *
 * Each datagram is struct ctl_hdr followed by len bytes of payload. A
 * request's payload is a list of NUL-terminated strings (its arguments);
 * the reply's payload is struct ctl_reply_body followed by text for the
 * user (NUL-terminated). gadgetd checks every length before it copies a
 * byte and identifies the peer with SO_PEERCRED.
 */
#ifndef GADGETD_PROTOCOL_H
#define GADGETD_PROTOCOL_H

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

/* Split a payload of NUL-terminated strings into argv (at most max).
 * Returns the count or -EINVAL if the payload is not such a list. */
int ctl_parse_args(const char *payload, uint32_t len, char **argv, int max);

#endif
