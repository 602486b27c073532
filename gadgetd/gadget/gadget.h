/*
 * gadget: the live gadget; the public face of the gadget module, whose
 * files gadget_int.h lists (each function here names the file it lives
 * in, when that is not gadget.c).
 *
 * A switch validates the request, then hands it to a transaction
 * (txn.h), which computes the difference from the live ConfigFS tree,
 * unbinds once, removes and creates functions, waits for every
 * FunctionFS plugin to be ready (an event from its worker, while the
 * loop goes on), binds, and on any failure goes back to the set that
 * worked before. One transaction runs at a time; what plugins and SIGHUP
 * ask for meanwhile, and crashed workers, wait and run after it; then the
 * clients' queue (dispatch.c) hears that the gadget is idle. Every call
 * here is an immediate operation: refused (-EBUSY) while the gadget is
 * busy; deciding whether a client's request waits is dispatch.c's.
 */
#ifndef GADGETD_GADGET_H
#define GADGETD_GADGET_H

#include "profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct loop;
struct config;
struct profile;
struct gadget;

/*
 * Requests that wait for plugins return -EINPROGRESS and give their result
 * to fn later, from the loop, exactly once: never from inside the call
 * that started them (at the latest from gadget_free(), with -ECANCELED).
 * Every other return is the result, with msg filled in.
 */
typedef void (*gadget_done_fn)(int r, const char *msg, void *data);

int gadget_new(struct loop *l, const struct config *cfg, struct gadget **out);
/* Tear the gadget down (workers stopped, ConfigFS removed). */
void gadget_free(struct gadget *g);

/* The start-up (boot.h): bring up the set from the state file, else the
 * profile's default. */
int gadget_boot_start(struct gadget *g, char *msg, size_t size,
		      gadget_done_fn fn, void *data);

/* The start-up (boot.h) is over (gadget_boot_start()'s result:
 * 0 when a set is up, the one it fell back to included, or the gadget
 * stayed off as it was) or not yet (-EINPROGRESS: fn follows, once, when
 * it is; -ECANCELED from gadget_free()). */
int gadget_boot_wait(struct gadget *g, char *msg, size_t size,
		     gadget_done_fn fn, void *data);

/*
 * Switch to set (NULL: the profile's default) of
 * profile (NULL: keep the current one; otherwise the name of a profile in
 * profile_dir, loaded and validated first). Returns 0, or -errno with msg saying what failed and
 * whether the previous set was restored: -ENOENT/-EPERM/-EINVAL for a bad
 * request (nothing touched), other codes for a failure after which the
 * gadget was rolled back; -EBUSY (gadget_refuse_busy()) while busy. The
 * state file records the set. gadget_off() and gadget_command() are
 * refused while busy too.
 */
int gadget_switch(struct gadget *g, const char *profile, const char *set,
		  char *msg, size_t size, gadget_done_fn fn, void *data);
/* Off: unbind now; the functions and the gadget leave ConfigFS once
 * their workers are reaped, and meanwhile the gadget is busy. With fn,
 * -EINPROGRESS until then, and fn (0, "gadget is off") follows, so that
 * a reply says the gadget is gone; without, 0 at once. */
int gadget_off(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
	       void *data);
/* Re-read the active profile and apply its active set again; a bad file
 * changes nothing. -EBUSY while busy. */
int gadget_reload(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
		  void *data);
/* gadget_queue.c: SIGHUP: reload now, or once the switch or command in
 * progress is done; the result is logged. */
void gadget_queue_reload(struct gadget *g);

/*
 * What waits for the gadget outside it: the clients' queue (dispatch.c).
 * idle(data) is called once the gadget is idle and none of its own work
 * waits (crashed workers, SIGHUP's reload, a plugin's switch request:
 * these go first), from the loop: when a transaction, command or
 * teardown ends, and after this round once gadget_kick_waiters() asked.
 * queued(data) is how many wait, for status. w NULL: nobody waits.
 */
struct gadget_waiters {
	void (*idle)(void *data);
	unsigned (*queued)(void *data);
};
void gadget_set_waiters(struct gadget *g, const struct gadget_waiters *w, void *data);
void gadget_kick_waiters(struct gadget *g);

/* gadget_status.c: `gadgetctl status`, as text or JSON (status.h). */
void gadget_status(struct gadget *g, FILE *out, bool json);

/* Where gadget_status_fill() puts the strings it makes; the others are
 * borrowed from the gadget and live until it next changes. */
struct gadget_status_buf {
	char set[256];
	char configs[PROFILE_MAX_CONFIGS][256];
	char udc_state[64];
	char speed[64];
	struct {
		char name[64], state[64], speed[64];
	} udcs[8]; /* STATUS_MAX_UDCS */
	struct {
		char function[32], tty[16];
	} consoles[16]; /* PROFILE_MAX_FUNCTIONS */
	struct {
		char function[32], link[16], uplink[16], why[160];
	} shares[16]; /* PROFILE_MAX_FUNCTIONS, uplink.h's struct uplink_info */
};
struct status;
/* gadget_status.c: the status structure alone, for renderers that are
 * not a FILE (the D-Bus properties). */
void gadget_status_fill(struct gadget *g, struct status *st,
			struct gadget_status_buf *buf);
/* gadget_list.c: the sets of the active profile, in the profile's order;
 * nothing when none is loaded. */
typedef void (*gadget_list_fn)(const char *set, bool is_default, bool active,
			       void *data);
void gadget_list_sets(struct gadget *g, gadget_list_fn fn, void *data);
/* gadget_list.c: `gadgetctl list`. */
void gadget_list(struct gadget *g, FILE *out);
/* `gadgetctl list --sets|--profiles|--functions`, for scripts and shell
 * completion: what ("sets", "profiles" or "functions") one a line: the
 * active profile's sets (functions joined by commas), the profiles that
 * `switch --profile` may name, or the active profile's functions, each
 * with its plugin ("-" for a kernel function) after a tab. -EINVAL for
 * another what. */
int gadget_list_names(struct gadget *g, FILE *out, const char *what);
/* argv[0] is the function (gadget_command.c sends it). Refused (-EBUSY) while
 * busy; until it is answered the gadget is busy (a plugin's switch
 * request waits, a client's is dispatch.c's to queue). */
/*
 * `gadgetctl wakeup`: ask the UDC to wake the host that suspended the bus
 * (gadget_wakeup.c). -EINPROGRESS: fn gets 0 once the host resumed the
 * bus, or -EHOSTDOWN when it did not within 2 s (it has not enabled
 * remote wakeup). At once: -ENOTCONN (not bound), -EOPNOTSUPP (the set's
 * configuration lacks remote_wakeup), -EAGAIN (the bus is not
 * suspended), or the UDC's -errno; msg says why.
 */
int gadget_wakeup(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
		  void *data);
int gadget_command(struct gadget *g, int argc, char **argv, char *reply,
		   size_t size, gadget_done_fn fn, void *data);
/*
 * gadget_storage.c: `gadgetctl storage ...` (req: insert, eject or status,
 * parsed; storage.h) on the active set's mass_storage functions, at once
 * (ConfigFS only, no worker). member: NULL for root and admin_group,
 * else the member of group who asks, whose images must lie beneath the
 * function's media_dir, who cannot lower the profile's cdrom and ro,
 * whose images the kernel opens as that member (read-only unless the
 * member may write them), and who is not shown media outside media_dir.
 * 0 or -errno with msg; status prints to out.
 */
struct storage_cred;
struct storage_req;
int gadget_storage(struct gadget *g, const struct storage_cred *member,
		   const struct storage_req *req, char *msg, size_t size, FILE *out);
/* Whether the profile lets group change the media of function (NULL: the
 * set's one mass_storage function): its group_media attribute. */
bool gadget_storage_group_open(const struct gadget *g, const char *function);
/*
 * Lock (locked true) or unlock the device: every worker is told, and
 * the plugins whose function is gated (their lock_gated option) serve
 * no data while locked (plugin.h's plugin_locked()). Neither busy nor
 * queued: a lock takes effect even during a switch. The state survives
 * a restart of gadgetd (state.h). 0 (also when it already was), or
 * -errno when the marker cannot be written, with msg.
 */
int gadget_lock(struct gadget *g, bool locked, char *msg, size_t size);
bool gadget_locked(const struct gadget *g);

/* The caller behind data went away: its requests go on, but their fn is
 * not called. */
void gadget_cancel(struct gadget *g, void *data);

/* A switch, reload, restart or plugin command is in progress, or the
 * gadget is going down. */
bool gadget_busy(const struct gadget *g);
/* -EBUSY, msg saying what the gadget is busy with: the one refusal of
 * every front end. */
int gadget_refuse_busy(const struct gadget *g, char *msg, size_t size);
/* The active profile's name, NULL if none is loaded. */
const char *gadget_profile_name(const struct gadget *g);
/* The profile the transaction in progress goes to, else the active one;
 * NULL if none is loaded. Valid until the gadget next changes. */
const struct profile *gadget_target_profile(const struct gadget *g);
/* The plugin behind a function of the active profile; NULL for a kernel
 * function or a name the profile does not have. */
const char *gadget_function_plugin(const struct gadget *g, const char *function);

#endif
