/*
 * dbus_int: what the files of the dbus module share (dbus.h is its
 * public face):
 *
 *   dbus.c        the connection, its place in the loop, the methods
 *   dbus_props.c  the properties, a snapshot of the status structure,
 *                 and PropertiesChanged for what differs from it
 *   dbus_auth.c   the caller's credentials, access.h's table, polkit
 */
#ifndef GADGETD_DBUS_INT_H
#define GADGETD_DBUS_INT_H

#include "dbus.h"
#include "access.h"
#include "request.h"
#include "log.h"
#include "profile.h"

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#define DBUS_PATH "/org/gadgetd1"
#define DBUS_FUNCTION_PATH "/org/gadgetd1/function"
#define DBUS_UDC_PATH "/org/gadgetd1/udc"
#define DBUS_MANAGER_IFACE "org.gadgetd1.Manager"
#define DBUS_FUNCTION_IFACE "org.gadgetd1.Function"
#define DBUS_UDC_IFACE "org.gadgetd1.UDC"
#define DBUS_ERROR_BUSY "org.gadgetd1.Error.Busy"
#define DBUS_ERROR_NOT_FOUND "org.gadgetd1.Error.NotFound"
#define DBUS_ERROR_FAILED "org.gadgetd1.Error.Failed"

/* A plugin command: the function and its arguments, fewer than the
 * control socket takes (64), and the arguments' bytes together. */
#define DBUS_MAX_ARGS 62
#define DBUS_MAX_ARG_BYTES 4096
/* Calls in progress at once (waiting for the bus, polkit or the gadget):
 * any user on the bus can make them, and each of gadgetd's own questions
 * takes one of the few replies the bus lets a connection wait for. */
#define DBUS_MAX_REQS 32
/* ... and of them, one user's (root's are not counted), as the control
 * socket's per_uid: an interactive polkit check may wait 300 s, and one
 * local user must not hold every slot. */
#define DBUS_MAX_REQS_PER_UID 4

struct dbus_function {
	char name[PROFILE_NAME_MAX];
	char plugin[PROFILE_NAME_MAX];   /* "" for a kernel function */
	char state[32];                  /* a plugin's, or "kernel" */
	uint32_t restarts;
	char host[256];                  /* "" unless the plugin says */
	char console[32];                /* its login's state; "" for none */
	char uplink[32];                 /* its uplink share's state; "" for none */
};

/* A UDC of /sys/class/udc: the one the gadget is bound to first, then
 * at most DBUS_MAX_UDCS - 1 others. */
#define DBUS_MAX_UDCS 8
struct dbus_udc {
	char name[64];
	char state[64];
	char speed[64];
};

/* What the properties show; compared with the next one to tell what
 * changed. */
struct dbus_snap {
	char profile[PROFILE_NAME_MAX];
	char set[256];
	char state[16];                  /* "off", "up" or "switching" */
	char last_error[1024];
	uint32_t switches;
	int locked;                      /* a D-Bus boolean is an int */
	char udc[64];
	char udc_state[64];
	char speed[64];
	char bus[16];                    /* status.h's bus ("" not bound) */
	int remote_wakeup;               /* sd-bus's "b" is an int */
	unsigned n_functions;
	struct dbus_function functions[PROFILE_MAX_FUNCTIONS];
	unsigned n_udcs;
	struct dbus_udc udcs[DBUS_MAX_UDCS];
};


/* A call being authorized, then carried out. */
struct dbus_req;
/* dbus_auth_start()'s answer: authorized (r == 0) or not (why says why). */
typedef void (*dbus_auth_done_fn)(struct dbus_req *q, int r, const char *why);

struct dbus_req {
	struct dbus *d;
	struct dbus_req *next;
	sd_bus_message *m;
	sd_bus_slot *slot;       /* the call to the bus or polkit in flight */
	bool submitted;          /* dispatch has it: dispatch_cancel() */
	bool identified;         /* peer.uid is the caller's, from the bus */
	/* Who asks: the caller's uid and groups from the bus, as polkit's
	 * grant makes them if it allowed the call (access_grant());
	 * dispatch judges a queued request again with it. */
	struct access_peer peer;
	/* The request (request.h): a switch, reload, off or command, its
	 * strings in argv, which this owns (a command's: the function, the
	 * command, its arguments; a switch's: [profile,] set). */
	struct request req;
	int argc;
	char *argv[DBUS_MAX_ARGS + 1];
	const char *action;      /* polkit's, for what the table refuses */
	dbus_auth_done_fn auth_done;
	char why[512];           /* the table's refusal, while polkit thinks */
};

struct dbus {
	struct loop *loop;
	struct gadget *gadget;
	struct dispatch *dispatch;
	const struct config *cfg;
	struct access_policy policy;
	sd_bus *bus;
	bool named;              /* DBUS_NAME is ours */
	struct loop_watch *io, *timer, *retry;
	struct event_sub *sub;
	struct dbus_req *reqs;
	unsigned n_reqs;
	bool absent_logged;
	unsigned retry_ms;
	struct log_burst denied_log;
	struct dbus_snap snap;
};

/* The bus may have something to send: watch for it. */
void dbus_rearm(struct dbus *d);

/* dbus_auth.c: find out who sent q, then whether the table or polkit
 * allows it; done follows, from a later callback (-EACCES or -EBUSY
 * when not). -errno if the question cannot be asked. */
int dbus_auth_start(struct dbus_req *q, dbus_auth_done_fn done);

/* dbus_props.c: the function and UDC objects, and the refresh before
 * each call. */
int dbus_props_add(struct dbus *d);
/* Getters for the manager's properties (dbus.c's vtable): data points
 * at a string, a uint32_t, or (the lists of objects) at the snapshot. */
int dbus_props_get_str(sd_bus *bus, const char *path, const char *iface,
		       const char *prop, sd_bus_message *reply, void *data,
		       sd_bus_error *err);
int dbus_props_get_u32(sd_bus *bus, const char *path, const char *iface,
		       const char *prop, sd_bus_message *reply, void *data,
		       sd_bus_error *err);
int dbus_props_get_bool(sd_bus *bus, const char *path, const char *iface,
			const char *prop, sd_bus_message *reply, void *data,
			sd_bus_error *err);
int dbus_props_get_functions(sd_bus *bus, const char *path, const char *iface,
			     const char *prop, sd_bus_message *reply, void *data,
			     sd_bus_error *err);
int dbus_props_get_udcs(sd_bus *bus, const char *path, const char *iface,
			const char *prop, sd_bus_message *reply, void *data,
			sd_bus_error *err);
/* Read the status again and announce what changed (if on the bus). */
void dbus_props_refresh(struct dbus *d);

#endif
