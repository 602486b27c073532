/*
 * worker: the state of gadgetd-worker, shared by worker.c (argv, sandbox,
 * FunctionFS, the wmsg socket: the worker's lifecycle) and plugin.c (the
 * API plugins call, plugin.h), and ffsexec.c (a program instead of a
 * plugin). Plugins see struct plugin as opaque; only these files include
 * this header.
 */
#ifndef GADGETD_WORKER_H
#define GADGETD_WORKER_H

#include "plugin.h"
#include "wargv.h"

#include <stdbool.h>
#include <stdint.h>

#define WORKER_MAX_OPTS WARGV_MAX_OPTS

struct plugin {
	struct loop *loop;
	const struct plugin_ops *ops;
	void *priv;
	bool have_priv;
	void *dl;
	const char *so;
	const char *instance;
	const char *dir;
	const char *opts[WORKER_MAX_OPTS];
	unsigned n_opts;
	const char *user, *group; /* NULL: stay who we are */
	uint64_t caps;
	enum plugin_root root;    /* -r */
	struct spawner *spawner;
	struct plugin_desc desc;
	int ep_fds[PLUGIN_MAX_EPS];
	struct ffs_ep0 *ep0;
	struct loop_watch *ep0_watch;
	struct loop_watch *ep0_done;   /* the stage thread's eventfd */
	struct loop_watch *ep0_timer;  /* the deadline of its stage */
	struct loop_watch *ctl;
	struct epio *epio;
	bool enabled;
	bool refused_bound;
	bool host_seen;  /* WORKER_HOST_SEEN sent */
	bool cmd_waiting; /* a command answers later (PLUGIN_COMMAND_LATER) */
	uint32_t cmd_id;
	bool in_command;  /* ops->command runs, for command cmd_now */
	uint32_t cmd_now;
	/* A WORKER_KEY waits for gadgetd's WORKER_KEY_DONE (plugin_keys_append). */
	plugin_keys_fn keys_done;
	void *keys_data;
	uint32_t keys_id;
	/* A WORKER_WAKEUP waits for WORKER_WAKEUP_DONE (plugin_wakeup). */
	plugin_wakeup_fn wake_done;
	void *wake_data;
	bool locked;      /* -l, then WORKER_LOCK: the device is locked */
};

/*
 * Send one wmsg datagram of len bytes (a wmsg_build_*() result: a negative
 * len is returned as is) to gadgetd without blocking. Returns 0,
 * -ENOTCONN before the socket is set up, or -errno of send() (logged: a
 * full socket drops the message).
 */
int worker_send(struct plugin *p, const uint8_t *buf, int len);
/* Build and send a message of n strings (wmsg_build_strings()). */
int worker_send_strings(struct plugin *p, uint16_t type,
			const char *const *strs, unsigned n);

/* The last warning or error the worker logged, or "". */
const char *worker_last_error(void);
/* plugin.c: WORKER_LOCK from gadgetd; the plugin hears of a change
 * (ops->lock) if its function is gated (plugin_locked()). */
void plugin_lock_receive(struct plugin *p, const uint8_t *payload, size_t len);
/* WORKER_INPUT, _GONE and _STATE to the plugin (it owns fds then); false
 * for another type (fds untouched). */
bool plugin_input_receive(struct plugin *p, uint16_t type, uint8_t *payload,
			  size_t len, int *fds, unsigned n_fds);

#endif
