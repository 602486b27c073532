/*
 * supervisor_int: what supervisor.c and supervisor_command.c (the relay
 * of plugin commands) share; nothing else may use it (supervisor.h is the
 * public face).
 */
#ifndef GADGETD_SUPERVISOR_INT_H
#define GADGETD_SUPERVISOR_INT_H

#include "child.h"
#include "supervisor.h"
#include "config.h"
#include "profile.h"
#include "status.h"
#include "wmsg.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#define SUP_MAX_STATUS STATUS_PLUGIN_KV_MAX
/* At shutdown, how long after SIGKILL a worker may take to die. */
#define SUP_KILL_MS 1000

struct sup_worker {
	struct supervisor *sup;
	char name[PROFILE_NAME_MAX];
	char mount[PATH_MAX];
	char **argv;
	/* The same worker as root (root = "allowed" only; see
	 * sup_root_request()). */
	char **argv_root;
	bool root_allowed;   /* the profile's root = "allowed" */
	/* The plugin's names of the requests ("adb root", "adb unroot"),
	 * its declaration's (plugin_meta.root); NULL unless root_allowed. */
	const struct plugin_meta_root *root_names;
	bool root;           /* the worker runs, or restarts, as root */
	bool root_switching; /* stopped to restart as root or back: not a crash */
	uid_t uid;
	gid_t gid;
	char plugin[PROFILE_NAME_MAX * 2 + 8]; /* "" for an exec function */
	char exec[PATH_MAX];                   /* its program, else "" */
	struct loop_watch *sock;
	struct loop_watch *restart;
	bool ready;
	bool ever_ready;     /* since supervisor_start */
	bool host;
	/* The worker's last WORKER_BUS: the host suspended the bus (and has
	 * not resumed it, nor enabled or disabled the function since). */
	bool bus_suspended;
	/* This run of the worker met a host: it was enabled, or got a
	 * control request. Its exit then never counts as a crash loop. */
	bool host_seen;
	unsigned restarts;
	uint64_t started_ms;
	char last_exit[96];
	/* What the running worker sent as its last error (WORKER_ERROR), and
	 * the one that came with last_exit. */
	char error[WORKER_ERROR_MAX];
	char last_error[WORKER_ERROR_MAX];
	/* The heartbeat: a timer every heartbeat_interval_ms, the last sign
	 * of life (spawn, READY, PONG), the seq of the last ping sent. */
	struct loop_watch *hb;
	uint64_t alive_ms;
	uint32_t hb_seq;
	uint32_t hb_ack;     /* the seq of the last PONG */
	bool hb_killed;      /* this pid was killed for missing it */
	/* The next restart's delay, and the exits within
	 * restart_window_ms; at restart_limit of them the plugin is failed:
	 * no more restarts until a switch revives it. */
	struct child_restart exits;
	bool failed;
	char failed_why[192];
	/* The running process (NULL between an exit and the restart);
	 * its pid is sup_pid(). */
	struct child *child;
	/* supervisor_stop() stopped it: on the stopping list until it has
	 * ended. */
	bool stopping;
	unsigned n_status;
	char *status[SUP_MAX_STATUS][2];
	/* TCP (supervisor_tcp.c): the port to listen on (the profile's tcp,
	 * or what the plugin asked for, 0: none), whether the plugin may
	 * ask (tcpip = true), the interface (tcp_interface; "": the
	 * gadget's network functions), and what was last handed to which
	 * run of the worker. */
	unsigned tcp_port;
	/* The profile's tcp: the one port below 1024 the plugin may ask for. */
	unsigned tcp_profile_port;
	bool tcpip_allowed;
	bool tcp_refused_said;
	char tcp_iface[20];
	pid_t tcp_sent_pid;
	char tcp_sent[256];
	unsigned tcp_sent_n; /* how many sockets it got */
	/* The keys file gadgetd appends to for the worker's `allow`
	 * (supervisor_command.c, WORKER_KEY): the profile's `keys` or its
	 * plugin's default, "" for a plugin without one. */
	char keys[PATH_MAX];
	bool key_refused_said; /* a WORKER_KEY outside an `allow` was logged */
	struct sup_worker *next;
};

/* A command sent to a worker. It belongs to the supervisor, not to the
 * worker, so a worker that is stopped or dies only finishes it. */
struct sup_cmd {
	struct supervisor *sup;
	struct sup_worker *w;        /* NULL once finished */
	uint32_t id;
	struct loop_watch *timer;
	struct loop_watch *report;   /* idle: hands the result to fn */
	int rc;
	char reply[1024];
	/* An `allow`, which may have one line appended to the keys file
	 * (WORKER_KEY); false once it has. */
	bool key_allowed;
	supervisor_reply_fn fn;
	void *data;
	struct sup_cmd *next;
};

struct supervisor {
	struct loop *loop;
	const struct config *cfg;
	supervisor_switch_fn on_switch;
	supervisor_restart_fn on_restart;
	void *data;
	struct sup_worker *workers;
	uint32_t next_cmd;
	struct sup_cmd *cmds;
	/* The one wait for readiness, and what ends it. */
	supervisor_ready_fn ready_fn;
	void *ready_data;
	unsigned ready_timeout_ms;
	struct loop_watch *ready_timer;
	struct loop_watch *ready_check;  /* idle: a worker's state changed */
	/* Why the last supervisor_start() failed, naming the path. */
	char start_err[PATH_MAX + 128];
	/* Workers stopped but not yet reaped: their instance stays mounted
	 * (and in ConfigFS) until they are. */
	struct sup_worker *stopping;
	supervisor_stopped_fn stopped_fn;
	void *stopped_data;
	struct loop_watch *stopped_check;  /* idle */
	supervisor_tcp_fn tcp_fn;
	void *tcp_data;
	const struct supervisor_bus_ops *bus_ops;
	void *bus_data;
	bool locked;      /* supervisor_set_locked() */
	supervisor_input_fn input_fn;
	void *input_data;
};

/* supervisor.c: the live worker of function name, or NULL. */
struct sup_worker *supervisor_find(struct supervisor *s, const char *name);

/* supervisor_tcp.c */
/* The TCP options of f into w, at supervisor_start(). */
void supervisor_tcp_init(struct sup_worker *w, const struct profile_function *f);
/* WORKER_TCP: the plugin asks to listen on port (0: stop). */
void supervisor_tcp_request(struct sup_worker *w, const uint8_t *p, size_t len);

/* supervisor_input.c: WORKER_INPUT_GRAB, the plugin's request. */
void supervisor_input_request(struct sup_worker *w, const uint8_t *p, size_t len);

/* supervisor_command.c */
/* What the relay needs of f, at supervisor_start(): its keys file. */
void supervisor_command_init(struct sup_worker *w, const struct profile_function *f);
/* WORKER_KEY: append the plugin's line to w's keys file for its `allow`,
 * and answer with WORKER_KEY_DONE. */
void supervisor_command_key(struct sup_worker *w, uint8_t *p, size_t len);
/* The reply to command id from w's plugin. */
void supervisor_command_reply(struct sup_worker *w, uint32_t id, int32_t rc,
			      const char *text);
/* w is stopped or gone: its commands end with rc, why in their reply. */
void supervisor_command_finish_all(struct sup_worker *w, int rc, const char *why);
/* supervisor_free(): every command's result to its caller now. */
void supervisor_command_free_all(struct supervisor *s);

/* The running worker's pid; 0 while none runs. */
static inline pid_t sup_pid(const struct sup_worker *w)
{
	return child_pid(w->child);
}

#endif
