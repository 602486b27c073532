/*
 * supervisor: one gadgetd-worker process per FunctionFS instance.
 *
 * supervisor_start() mounts the instance (no_disconnect=1, so a crashing
 * worker does not take the gadget down) and spawns its worker; a worker
 * that dies is restarted with backoff for as long as its function is live.
 * Readiness (descriptors written) arrives as an event from the worker.
 */
#ifndef GADGETD_SUPERVISOR_H
#define GADGETD_SUPERVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct loop;
struct config;
struct profile_function;
struct supervisor;

/* A plugin asked for a switch ("set" or "revert"). */
typedef void (*supervisor_switch_fn)(const char *function, const char *request,
				     void *data);

/*
 * A crashed worker is due for its restart. The kernel cannot reopen a
 * FunctionFS instance whose gadget is bound, so the callback unbinds,
 * calls supervisor_respawn() and binds again once the plugin is ready.
 */
typedef void (*supervisor_restart_fn)(const char *function, void *data);

struct supervisor *supervisor_new(struct loop *l, const struct config *cfg,
				  supervisor_switch_fn on_switch,
				  supervisor_restart_fn on_restart, void *data);
/* Stops every worker and unmounts every instance. */
void supervisor_free(struct supervisor *s);

int supervisor_start(struct supervisor *s, const struct profile_function *f);
void supervisor_stop(struct supervisor *s, const char *name);
bool supervisor_has(struct supervisor *s, const char *name);
/* Start the worker of a live function again if it is not running. */
int supervisor_respawn(struct supervisor *s, const char *name);

/* Dispatch the loop until every started worker is ready; -ETIMEDOUT with
 * err naming the functions that were not ready and why. */
int supervisor_wait_ready(struct supervisor *s, unsigned timeout_ms, char *err,
			  size_t err_size);

/* Relay a command to a function's plugin and wait for its reply. */
int supervisor_command(struct supervisor *s, const char *name, int argc,
		       char **argv, char *reply, size_t reply_size);

/* SIGCHLD: reap and schedule restarts. */
void supervisor_reap(struct supervisor *s);

/* Unmount FunctionFS instances left under ffs_dir by an earlier run. */
void supervisor_clean_mounts(const struct config *cfg);

/* Append each worker's state as text or as JSON array members. */
void supervisor_status(struct supervisor *s, FILE *out, bool json);

#endif
