/*
 * pending: the gadget's own work that waits for the transaction or
 * command in progress, as an object of its own: crashed workers to
 * restart, SIGHUP's reload, and a plugin's switch request (the last one
 * wins; "revert" goes back to the set before the last one it asked for).
 * When the gadget goes idle it decides what runs next, in that order;
 * with none of its own left, the clients' queue (dispatch.c) hears that
 * the gadget is idle.
 *
 * It knows nothing of struct gadget: it asks its owner for a view (the
 * active profile and set, whether it is busy) and runs each piece of
 * work through pending_ops. What a plugin may ask for is judged here,
 * from the profile the owner loaded, never from the worker.
 */
#ifndef GADGETD_PENDING_H
#define GADGETD_PENDING_H

#include <stdbool.h>
#include <stddef.h>

struct loop;
struct profile;
struct pending;

/* A result, once (gadget_done_fn's shape). */
typedef void (*pending_done_fn)(int r, const char *msg, void *data);

/* What the owner has now. */
struct pending_view {
	const struct profile *profile; /* NULL: none */
	int set;                       /* -1: off */
	bool txn;                      /* a transaction is in progress */
	bool busy;                     /* a transaction, command or teardown */
};

/* How it runs the work (data: pending_new()'s ops_data). */
struct pending_ops {
	void (*view)(struct pending_view *v, void *data);
	/* A crashed worker of function again (a transaction, or at once). */
	void (*restart)(const char *function, void *data);
	/* gadget_reload(), gadget_switch() that the state file records:
	 * -EINPROGRESS and fn(..., fn_data) follows, or the result. */
	int (*reload)(char *msg, size_t size, pending_done_fn fn, void *fn_data,
		      void *data);
	int (*switch_to)(const char *profile, const char *set, char *msg,
			 size_t size, pending_done_fn fn, void *fn_data, void *data);
	/* A reload or plugin's switch failed (what: "reload", "switch
	 * requested by FUNCTION"), for status. */
	void (*failed)(const char *what, const char *msg, void *data);
	/* None of the owner's own work waits and it is idle: the clients'
	 * turn. */
	void (*idle)(void *data);
};

/* NULL with errno. */
struct pending *pending_new(struct loop *l, const struct pending_ops *ops,
			    void *ops_data);
void pending_free(struct pending *pd);
/* The owner is going down: nothing more runs. */
void pending_stop(struct pending *pd);

/* Restart function's worker once the transaction in progress is over:
 * -ENOSPC when too many wait (the caller restarts it at once). */
int pending_restart(struct pending *pd, const char *function);
/* SIGHUP: reload now, or once the switch or command in progress is done;
 * the result is logged. */
void pending_reload(struct pending *pd);
/* function's worker asks for a switch to request (a set or "revert"):
 * run once the gadget is idle, if its plugin may ask for it (the
 * refusal is logged, a few a minute). */
void pending_plugin_request(struct pending *pd, const char *function,
			    const char *request);
/* The clients' queue asks to hear when the gadget is idle. */
void pending_kick_waiters(struct pending *pd);
/* Look at what waits after this round. */
void pending_kick(struct pending *pd);
/* Right when a transaction or command ends, before the next round's
 * clients: what waits runs now. */
void pending_run_now(struct pending *pd);

#endif
