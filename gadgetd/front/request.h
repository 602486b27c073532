/*
 * request: what a client asks of gadgetd, typed, whichever front end it
 * came through (the control socket, control.c; D-Bus, dbus.c).
 *
 * A front end decodes its wire into a struct request; access.c judges
 * the struct (who may make it, through dispatch_check()), dispatch.c
 * runs it, queues it or refuses it as busy, and the front end renders
 * the answer. Strings are borrowed from the front end's buffers and must
 * outlive the request; a request that waits in dispatch's queue is
 * copied there, with its own strings, and judged again when it starts.
 */
#ifndef GADGETD_REQUEST_H
#define GADGETD_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage.h"

enum request_op {
	REQUEST_SWITCH,  /* profile and/or set */
	REQUEST_OFF,
	REQUEST_RELOAD,
	REQUEST_LIST,    /* what: NULL (all), "sets", "profiles", "functions" */
	REQUEST_STATUS,  /* json */
	REQUEST_STORAGE, /* storage: the storage words, parsed (storage.h) */
	REQUEST_COMMAND, /* function, command; argc, argv: FUNCTION COMMAND ARGS... */
	REQUEST_MONITOR,
	REQUEST_WAIT,
	REQUEST_WAKEUP,  /* wake the host (remote wakeup) */
	REQUEST_LOCK,    /* lock: true to lock, false to unlock */
	REQUEST_UNKNOWN, /* a type this gadgetd does not know */
};

struct request {
	enum request_op op;
	uint16_t type;        /* the control socket's CTL_* type */
	const char *profile;  /* switch --profile NAME; NULL */
	const char *set;      /* switch SET; NULL */
	const char *what;     /* list's choice; NULL */
	bool json;            /* status --json */
	bool lock;            /* lock (true) or unlock */
	const char *function; /* command: the function; NULL */
	const char *command;  /* command: its name; NULL */
	int argc;
	char **argv;
	struct storage_req storage; /* storage: what argv says, once */
	/* Not empty when the arguments do not make a request of op: told
	 * after access is decided, so that nobody learns more than they
	 * may. */
	char bad[512];
};

/* Decode a control socket request (ctl.h's type and arguments). Never
 * fails: a malformed one has bad set, an unknown type REQUEST_UNKNOWN. */
void request_from_ctl(uint16_t type, int argc, char **argv, struct request *r);

/* It changes the gadget (a switch, reload, off, media, a plugin command):
 * not while a switch is in progress, unless it waits its turn. */
bool request_changes(const struct request *r);
/* It waits its turn behind a switch in progress, rather than being
 * refused as busy (a switch, reload or off; an off goes first). */
bool request_waits(const struct request *r);

#endif
