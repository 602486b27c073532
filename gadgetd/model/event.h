/*
 * event: what happened to the gadget, told once to every listener.
 *
 * The one source of `gadgetctl monitor` lines and of the D-Bus signals
 * (PropertiesChanged), so the two cannot disagree. Whoever decides that
 * something happened (the switch transaction, the UDC watch, the
 * supervisor, a plugin's report) calls event_emit() once; listeners are
 * called in the order they subscribed, synchronously, from the loop.
 *
 * A listener must not block, must not call event_emit() from its
 * callback (the bus refuses the nested event and logs it), and may
 * unsubscribe itself or any other listener from its callback.
 *
 * Strings in an event are borrowed for the duration of the call; a
 * listener that keeps one copies it.
 */
#ifndef GADGETD_EVENT_H
#define GADGETD_EVENT_H

enum event_kind {
	/* The UDC's state changed (/sys/class/udc/NAME/state): detail is
	 * the new state ("not attached", "powered", "default", "addressed",
	 * "configured", "suspended"), function is NULL. */
	EVENT_HOST,
	/* A switch (or profile change, reload, off) began: detail is the
	 * set asked for ("" for off), function NULL. */
	EVENT_SWITCH_BEGUN,
	/* It ended: code 0 (detail: the set now up, "" when off) or -errno
	 * (detail: the message, which names the function and the reason). */
	EVENT_SWITCH_DONE,
	/* A plugin's worker was restarted after it died (code: restarts so
	 * far), or given up on (EVENT_PLUGIN_FAILED, detail: why). function
	 * names the profile's function. */
	EVENT_PLUGIN_RESTARTED,
	EVENT_PLUGIN_FAILED,
	/* A plugin's own event, as its declaration names it
	 * (plugin_meta.events): name says which ("adb-key": a host key waits
	 * for `gadgetctl adb allow`), detail is the value the worker
	 * reported (the key's fingerprint). */
	EVENT_PLUGIN,
	/* Anything else that `gadgetctl status` shows changed (a plugin's
	 * state, the profile after a reload); detail may say what. */
	EVENT_STATE,
	/* The device was locked or unlocked (gadgetctl lock, unlock; D-Bus
	 * Lock, Unlock): detail "locked" or "unlocked", function NULL. */
	EVENT_LOCK,
	/* A host configured the default set of a profile with ask = true:
	 * it waits for someone to choose (a switch). detail: the set that
	 * is up; function NULL. */
	EVENT_ASK,
};

struct event {
	enum event_kind kind;
	const char *function;    /* NULL when the event has none */
	const char *detail;      /* never NULL ("" when empty) */
	int code;
	const char *name;        /* EVENT_PLUGIN's; NULL for the others */
};

typedef void (*event_fn)(const struct event *ev, void *data);

struct event_sub;

/* Listen until event_unsubscribe(); NULL with errno ENOMEM. */
struct event_sub *event_subscribe(event_fn fn, void *data);
void event_unsubscribe(struct event_sub *s);

/* Tell every listener. function may be NULL, detail may be NULL (""). */
void event_emit(enum event_kind kind, const char *function, const char *detail,
		int code);

/* Tell a plugin's event name (EVENT_PLUGIN) about function; detail may be
 * NULL (""). */
void event_emit_plugin(const char *name, const char *function, const char *detail);

/* "host", "switch-begun", "switch-done", "plugin-restarted",
 * "plugin-failed", "plugin", "state", "lock", "host-waiting". */
const char *event_kind_name(enum event_kind kind);

/* The name monitor prints: the kind's, or a plugin event's own
 * ("adb-key"). */
const char *event_name(const struct event *ev);

#endif
