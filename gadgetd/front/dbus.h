/*
 * dbus: gadgetd on the system bus, as org.gadgetd1 (gadgetd-dbus(7); the
 * interface is gadgetd/front/org.gadgetd1.xml).
 *
 * Served from gadgetd's own loop through sd-bus, never blocking it: every
 * call that waits (a switch, the caller's credentials, polkit) is answered
 * from a later callback. The bus is optional: without one gadgetd logs
 * once and tries again every DBUS_RETRY_MS; a bus that goes away (the
 * daemon restarted) is dropped, logged once, and connected again the same
 * way. The control socket works either way.
 *
 * Who may do what follows access.h's table, which the socket uses too:
 * gadgetd reads the caller's uid and groups from the bus daemon and lets
 * root, admin_group and group do what they may do on the socket; anything
 * more is asked of polkit (CheckAuthorization with the caller's bus name),
 * whose actions (org.gadgetd1.policy) mirror the same table.
 */
#ifndef GADGETD_DBUS_H
#define GADGETD_DBUS_H

struct loop;
struct gadget;
struct dispatch;
struct access_policy;
struct config;

#define DBUS_NAME "org.gadgetd1"
#define DBUS_RETRY_MS 10000
/* At most one line a window of this many seconds about denied calls,
 * which any user on the bus can make. */
#define DBUS_LOG_S 10

/* policy's strings are copied; cfg (profile_dir, for ListProfiles) must
 * outlive it. The methods that change the gadget go through dispatch
 * (dispatch.h); the properties and ListSets read g. NULL only when out
 * of memory: no bus is no error. */
struct dbus *dbus_new(struct loop *l, const struct config *cfg,
		      const struct access_policy *policy, struct gadget *g,
		      struct dispatch *dispatch);
/* Try again after ms instead of DBUS_RETRY_MS (tests). */
void dbus_set_retry_ms(struct dbus *d, unsigned ms);
/* Pending callers get an error reply; the bus is closed without waiting. */
void dbus_free(struct dbus *d);

#endif
