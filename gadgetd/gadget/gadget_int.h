/*
 * gadget_int: what the files of the gadget module share, and nothing
 * outside them may use (gadget.h is the public face). The module is split
 * by job:
 *
 *   gadget.c          the gadget itself: new/free, switch (checked, then
 *                     handed to a transaction, txn.h), off, reload,
 *                     cancel, loading a profile, saving the state; the
 *                     calls up of its transactions (txn_ops) and of its
 *                     start-up (boot_ops)
 *   gadget_queue.c    the gadget's side of what waits for the transaction
 *                     in progress (pending.h: crashed workers, a plugin's
 *                     switch request, SIGHUP's reload), which then tells
 *                     the clients' queue, dispatch.c's, the gadget is idle
 *   gadget_restart.c  a crashed worker again (as a transaction), a UDC
 *                     that appeared
 *   gadget_command.c  plugin commands (gadgetctl FUNCTION COMMAND)
 *   gadget_list.c     gadgetctl list
 *   gadget_storage.c  gadgetctl storage: media of mass_storage LUNs
 *   gadget_status.c   gadgetctl status, filled into status.h's structure
 *   gadget_wakeup.c   the bus as the workers see it, and remote wakeup
 */
#ifndef GADGETD_GADGET_INT_H
#define GADGETD_GADGET_INT_H

#include "gadget.h"
#include "profile.h"
#include "txn.h"

#include <stdbool.h>
#include <time.h>

struct boot;
struct gadget_wake;
struct composer;
struct netsvc;
struct supervisor;
struct udc_monitor;
struct udc_watch;
struct loop_watch;

#define GADGET_SET_MAX PROFILE_SET_NAME_MAX

/* A plugin command waiting for its reply. */
struct gadget_cmd {
	struct gadget *g;
	gadget_done_fn fn;
	void *data;
	struct gadget_cmd *next;
};

struct gadget {
	struct loop *loop;
	const struct config *cfg;
	struct composer *composer;
	struct supervisor *sup;
	struct udc_monitor *udcmon;
	/* The board's side of the bound set's network (netsvc.h). */
	struct netsvc *net;
	struct profile *profile;
	int set;
	/* The host's side: the bound UDC's state, told as EVENT_HOST while
	 * the gadget is on and its UDC is there (gadget_host_sync()). */
	struct udc_watch *host;
	/* What ConfigFS holds, and what transactions work on (txn.h). */
	struct txn_live live;
	struct txn_env env;
	/* The one transaction in progress. */
	struct txn *txn;
	struct gadget_cmd *cmds;
	unsigned n_cmds;
	bool freeing;
	/* gadget_down() waits for its workers to be reaped. */
	bool down_wait;
	/* An off's caller, answered once the gadget is gone (gadget_off()). */
	gadget_done_fn off_fn;
	void *off_data;
	unsigned switches;
	/* The last switch that failed, for status, until one works. */
	time_t failed_when;
	char failed[4096 + GADGET_SET_MAX + 16];
	/* What waits for the transaction or command in progress: crashed
	 * workers, SIGHUP, a plugin's switch request (pending.h). */
	struct pending *pending;
	/* The clients' queue (dispatch.c), behind what the above wait for:
	 * told when the gadget is idle. */
	const struct gadget_waiters *waiters;
	void *waiters_data;
	/* Binding to a UDC that just appeared: retries and their timer. */
	struct loop_watch *udc_timer;
	unsigned udc_tries;
	/* The start-up and what it did, for status (boot.h). */
	struct boot *boot;
	/* The start-up fell back from what the state file names: the file
	 * keeps naming it, so that the next start tries it again, until a
	 * client or plugin chooses a set (or off). */
	bool keep_state;
	/* `gadgetctl wakeup`s waiting for the bus to resume. */
	struct gadget_wake *wakes;
	/* gadgetctl lock (gadget_lock()): the plugins' gated functions
	 * serve no data. */
	bool locked;
	/* ask = true: a host-waiting event was told for this connection;
	 * the switch back to the default set, due once the host went. */
	bool asked;
	struct loop_watch *ask_idle;
};

/* gadget.c */
/*
 * ask = true (profile.h): the UDC's state (state), as the watch or the
 * UDC's going says it. "configured" with the default set up: a host
 * waits for a choice (EVENT_ASK, once a connection). "not attached": back
 * to the default set, from the loop. Nothing while the gadget is busy: a
 * switch's own unbind is no host's doing.
 */
void gadget_ask_host(struct gadget *g, const char *state);
/* Watch the state of the UDC the gadget is bound to (EVENT_HOST), or
 * stop watching when it is off or its UDC went: the last state told is
 * then "not attached". */
void gadget_host_sync(struct gadget *g);
/* Load and check profile name, with its workers' users resolved: 0,
 * -ENOENT or -EINVAL with msg saying why. */
int gadget_load_profile(struct gadget *g, const char *name,
			struct profile **out, char *msg, size_t size);
/* gadget_switch(); save: whether the state file records the set. */
int gadget_switch_save(struct gadget *g, const char *profile,
		       const char *set, bool save, char *msg, size_t size,
		       gadget_done_fn fn, void *data);
/* A transaction of the gadget's (txn_new() with the gadget's txn_ops),
 * g->txn, not started yet. NULL with errno. */
struct txn *gadget_txn_new(struct gadget *g, gadget_done_fn fn, void *data);

/* gadget_restart.c */
/* A crashed worker again (the supervisor's restart callback), queued
 * behind a transaction in progress. */
void gadget_restart_due(const char *function, void *data);
int gadget_restart_begin(struct gadget *g, const char *function);
/* The UDC monitor's callback. */
void gadget_restart_udc_changed(void *data);

/* gadget_command.c */
/* gadget_command() once allowed: sent to the plugin's worker; the gadget
 * is busy until the reply. */
int gadget_command_send(struct gadget *g, int argc, char **argv, char *reply,
			size_t size, gadget_done_fn fn, void *data);

/* gadget_queue.c */
/* The gadget's side of its pending work (pending_new()'s ops). */
extern const struct pending_ops gadget_queue_ops;
/* A plugin asked for a switch (the supervisor's callback). */
void gadget_queue_plugin_request(const char *function, const char *request,
				 void *data);

/* gadget_wakeup.c */
/* The supervisor's bus calls (supervisor_bus_set_ops()). */
extern const struct supervisor_bus_ops gadget_wakeup_ops;
/* Forget data's waits (NULL: answer every one -ECANCELED, for the end). */
void gadget_wakeup_cancel(struct gadget *g, void *data);
/* The bound set has remote_wakeup = true in one of its configurations. */
bool gadget_wakeup_configured(const struct gadget *g);
/* The host suspended the bus, as far as gadgetd can tell. */
bool gadget_wakeup_suspended(const struct gadget *g);

#endif
