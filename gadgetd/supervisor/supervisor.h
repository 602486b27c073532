/*
 * supervisor: one gadgetd-worker process per FunctionFS instance.
 *
 * supervisor_start() mounts the instance (no_disconnect=1, so a crashing
 * worker does not take the gadget down) and spawns its worker; a worker
 * that dies is restarted with backoff for as long as its function is live.
 * Readiness (descriptors written) arrives as an event from the worker.
 *
 * Each worker is pinged every heartbeat_interval; one that has not
 * answered for heartbeat_timeout (stopped, looping in a callback,
 * deadlocked) is killed and restarted like a crashed one. A worker that
 * exits restart_limit times within restart_window is failed: it is not
 * restarted (the gadget stays bound, the other functions keep working)
 * until supervisor_revive(), and status says why.
 *
 * Nothing here waits for a process: stopping a worker sends SIGTERM,
 * SIGKILL from a timer, and its instance is unmounted once it is reaped.
 *
 * supervisor.c keeps the workers; supervisor_command.c relays plugin
 * commands (supervisor_command()); supervisor_exec.h prepares a worker
 * (mount, command line, exec).
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
struct status;

/* A plugin asked for a switch ("set" or "revert"). */
typedef void (*supervisor_switch_fn)(const char *function, const char *request,
				     void *data);

/*
 * A crashed worker is due for its restart. The kernel cannot reopen a
 * FunctionFS instance whose gadget is bound, so the callback unbinds,
 * calls supervisor_respawn() and binds again once the plugin is ready.
 * Once more when the worker is marked failed: supervisor_respawn() then
 * returns -ENOTRECOVERABLE, and the gadget binds without the function
 * (the kernel tears down a gadget whose FunctionFS instance lost its
 * worker as soon as the host configures it again).
 */
typedef void (*supervisor_restart_fn)(const char *function, void *data);

struct supervisor *supervisor_new(struct loop *l, const struct config *cfg,
				  supervisor_switch_fn on_switch,
				  supervisor_restart_fn on_restart, void *data);
/* Stops every worker and unmounts every instance; this alone waits for
 * the workers, bounded (gadgetd is stopping). */
void supervisor_free(struct supervisor *s);

int supervisor_start(struct supervisor *s, const struct profile_function *f);
/* Why the last supervisor_start() failed ("cannot prepare /run/gadgetd/
 * accessory: Permission denied"), or "" when it did not say. */
const char *supervisor_start_error(struct supervisor *s);
/* Stop a function's worker (asynchronously; see supervisor_wait_stopped):
 * its name is free for supervisor_start() once no worker is stopping. */
void supervisor_stop(struct supervisor *s, const char *name);
/* Some stopped worker has not been reaped yet: its FunctionFS instance is
 * still mounted and its files held, so its function must stay. */
bool supervisor_stopping(struct supervisor *s);
typedef void (*supervisor_stopped_fn)(void *data);
/* Call fn from the loop (never from inside this call) once every stopped
 * worker is reaped and its instance unmounted (at once if none is). One
 * wait at a time: -EBUSY. */
int supervisor_wait_stopped(struct supervisor *s, supervisor_stopped_fn fn,
			    void *data);
void supervisor_wait_stopped_cancel(struct supervisor *s);
/* Start the failed workers again, with their crash count cleared: a
 * switch (the gadget unbound) gives them another chance. */
int supervisor_revive(struct supervisor *s);
bool supervisor_any_failed(struct supervisor *s);
/* How many times name's worker was restarted after it died. */
unsigned supervisor_restarts(struct supervisor *s, const char *name);
bool supervisor_failed(struct supervisor *s, const char *name);
/* Start the worker of a live function again if it is not running;
 * -ENOTRECOVERABLE if it failed (supervisor_revive()). */
int supervisor_respawn(struct supervisor *s, const char *name);

/*
 * The end of a wait for readiness: 0 when every started worker is ready,
 * -ECHILD when one died before it was ever ready (waiting longer cannot
 * help), -ETIMEDOUT; err then names the functions that were not ready and
 * why.
 */
typedef void (*supervisor_ready_fn)(int r, const char *err, void *data);

/* Call fn from the loop (never from inside this call) once the wait ends.
 * One wait at a time: -EBUSY. */
int supervisor_wait_ready(struct supervisor *s, unsigned timeout_ms,
			  supervisor_ready_fn fn, void *data);
/* Forget the wait; its fn is not called. */
void supervisor_wait_cancel(struct supervisor *s);

/* A plugin's reply: its status and text, or -ETIMEDOUT, -EPIPE (the worker
 * went away first), -ECANCELED (the function was stopped, or the
 * supervisor freed) with a sentence saying so. */
typedef void (*supervisor_reply_fn)(int rc, const char *reply, void *data);

/*
 * Relay a command to a function's plugin. -EINPROGRESS: fn gets the reply
 * later, from the loop, exactly once (from supervisor_free() at the
 * latest). Anything else: refused at once, reply says why.
 */
int supervisor_command(struct supervisor *s, const char *name, int argc,
		       char **argv, char *reply, size_t reply_size,
		       supervisor_reply_fn fn, void *data);

/*
 * The bus as the workers see it, and remote wakeup (gadget_wakeup.c): a
 * worker told that the host suspended (true) or resumed (false) the bus
 * (WORKER_BUS), or its plugin asks to wake the host (WORKER_WAKEUP):
 * wake's 0 or -errno is the worker's answer (WORKER_WAKEUP_DONE).
 */
struct supervisor_bus_ops {
	void (*bus)(const char *function, bool suspended, void *data);
	int (*wake)(const char *function, void *data);
};
void supervisor_bus_set_ops(struct supervisor *s,
			    const struct supervisor_bus_ops *ops, void *data);
/* A running worker's last word on the bus is that the host suspended it. */
bool supervisor_bus_suspended(struct supervisor *s);

/*
 * adb over TCP (supervisor_tcp.c). A function whose profile sets a TCP
 * port, or whose plugin asked for one (WORKER_TCP, when the profile has
 * tcpip = true; a port below 1024 only if it is the profile's tcp), gets
 * listening sockets from gadgetd once the gadget is bound and its network
 * interfaces exist (netsvc.c).
 */
/* The plugin of function asked to start or stop listening. */
typedef void (*supervisor_tcp_fn)(const char *function, void *data);
void supervisor_tcp_set_fn(struct supervisor *s, supervisor_tcp_fn fn,
			   void *data);
/* The port function's worker should listen on (0: none, or no such
 * worker) and the interface its profile names (tcp_interface: "" for the
 * gadget's network functions, "*" for all). */
unsigned supervisor_tcp_port(struct supervisor *s, const char *name,
			     const char **iface);
/* Whether what (a description of the port and interfaces) differs from
 * what the running worker of name last got: only then is it sent again.
 * A worker starts with none: "0@" (no port) is not due for a new one. */
bool supervisor_tcp_due(struct supervisor *s, const char *name,
			const char *what);
/* The port name's running worker was last handed sockets for (0: none,
 * or none since it started): what it listens on now. */
unsigned supervisor_tcp_listening(struct supervisor *s, const char *name);
/* Hand name's running worker n listening sockets for port (n == 0: stop
 * listening), described by what. The fds are closed here in any case.
 * 0, -ESRCH (no running worker) or -errno of sendmsg. */
int supervisor_tcp_listen(struct supervisor *s, const char *name,
			  unsigned port, int *fds, unsigned n, const char *what);

/*
 * Local input forwarded to the host (supervisor_input.c, inputfwd.h):
 * evdev devices gadgetd opened, handed to a function's worker by fd.
 */
/* The plugin of function asks to release (WMSG_GRAB_RELEASE), take or
 * toggle the forwarded devices (WORKER_INPUT_GRAB); the callback decides
 * whether the function may. */
typedef void (*supervisor_input_fn)(const char *function, unsigned how, void *data);
void supervisor_input_set_fn(struct supervisor *s, supervisor_input_fn fn,
			     void *data);
/* The pid of name's running worker (0: none), so that a device handed to
 * one run is handed again to the next. */
pid_t supervisor_input_pid(struct supervisor *s, const char *name);
/* Hand name's running worker a duplicate of fd (the caller keeps its
 * own) as device id: 0, -ESRCH (no running worker) or -errno of sendmsg. */
int supervisor_input_give(struct supervisor *s, const char *name, uint32_t id,
			  int fd, bool grabbed, const char *label);
/* Tell name's worker that device id went, or that every device is now
 * grabbed or released (nothing if no worker runs). */
void supervisor_input_gone(struct supervisor *s, const char *name, uint32_t id);
void supervisor_input_state(struct supervisor *s, const char *name, bool grabbed);

/* The device is locked (gadgetctl lock) or not: every running worker is
 * told now (WORKER_LOCK), and a worker started later at its start (-l). */
void supervisor_set_locked(struct supervisor *s, bool locked);

/* Each worker's state into st->plugins (status.h); the strings stay
 * valid until the supervisor next runs. */
void supervisor_status(struct supervisor *s, struct status *st);

#endif
