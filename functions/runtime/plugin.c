/*
 * The plugin API (plugin.h): what a plugin calls on its worker. The worker
 * itself (worker.c) owns struct plugin and its lifecycle; these functions
 * only read it, queue endpoint I/O through epio and send wmsg datagrams to
 * gadgetd through worker_send().
 */
#include "epio.h"
#include "ffs.h"
#include "log.h"
#include "plugin.h"
#include "spawner.h"
#include "wmsg.h"
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

struct loop *plugin_loop(struct plugin *p)
{
	return p->loop;
}

const char *plugin_instance(struct plugin *p)
{
	return p->instance;
}

const char *plugin_option(struct plugin *p, const char *key)
{
	size_t kl = strlen(key);
	unsigned i;

	for (i = 0; i < p->n_opts; i++)
		if (!strncmp(p->opts[i], key, kl) && p->opts[i][kl] == '=')
			return p->opts[i] + kl + 1;
	return NULL;
}

/* The getters' one complaint (plugin_meta_option_bool()'s why), with the
 * plugin's name; r passes through. */
static int plugin_option_refused(struct plugin *p, int r, const char *why)
{
	if (r == -EINVAL)
		log_warnx("%s: %s", p->ops->name, why);
	return r;
}

int plugin_option_bool(struct plugin *p, const char *key, bool *out)
{
	char why[256];

	return plugin_option_refused(
		p, plugin_meta_option_bool(p->ops->meta, plugin_option(p, key), key,
					   out, why, sizeof(why)), why);
}

int plugin_option_int(struct plugin *p, const char *key, long long *out)
{
	char why[256];

	return plugin_option_refused(
		p, plugin_meta_option_int(p->ops->meta, plugin_option(p, key), key,
					  out, why, sizeof(why)), why);
}

/* The plugin may only write to its IN endpoints. */
static bool plugin_ep_in(const struct plugin *p, unsigned ep)
{
	return ep < p->desc.n_eps && ffs_ep_is_in(p->desc.eps[ep].type);
}

int plugin_command_reply(struct plugin *p, int rc, const char *reply)
{
	uint8_t buf[WORKER_MSG_MAX];

	if (!p->cmd_waiting)
		return -EALREADY;
	p->cmd_waiting = false;
	return worker_send(p, buf, wmsg_build_reply(buf, sizeof(buf), p->cmd_id,
						    rc, reply));
}

int plugin_keys_append(struct plugin *p, const char *line, plugin_keys_fn done,
		       void *data)
{
	uint8_t buf[WORKER_MSG_MAX];
	int r;

	if (!p->in_command)
		return -EALREADY;
	/* The answer goes to the command that waits: one at a time. */
	if (p->cmd_waiting || p->keys_done)
		return -EBUSY;
	r = worker_send(p, buf, wmsg_build_key(buf, sizeof(buf), p->cmd_now,
					       line));
	if (r < 0)
		return r;
	p->keys_done = done;
	p->keys_data = data;
	p->keys_id = p->cmd_now;
	return 0;
}

int plugin_wakeup(struct plugin *p, plugin_wakeup_fn done, void *data)
{
	uint8_t buf[16];
	int r;

	if (p->wake_done)
		return -EBUSY;
	r = worker_send(p, buf, wmsg_build_empty(buf, sizeof(buf), WORKER_WAKEUP));
	if (r < 0)
		return r;
	p->wake_done = done;
	p->wake_data = data;
	return 0;
}

int plugin_write(struct plugin *p, unsigned ep, const void *buf, size_t len)
{
	if (!plugin_ep_in(p, ep) || len > PLUGIN_MAX_XFER)
		return -EINVAL;
	if (!p->enabled || !p->epio)
		return -ESHUTDOWN;
	return epio_write(p->epio, ep, buf, len);
}

void *plugin_buf_alloc(struct plugin *p, size_t len)
{
	if (!p->epio || len > PLUGIN_MAX_XFER)
		return NULL;
	return epio_buf_alloc(p->epio, len);
}

int plugin_write_buf(struct plugin *p, unsigned ep, void *buf, size_t len)
{
	if (!p->epio)
		return -ESHUTDOWN;
	if (!plugin_ep_in(p, ep) || len > PLUGIN_MAX_XFER) {
		epio_buf_free(p->epio, buf);
		return -EINVAL;
	}
	if (!p->enabled) {
		epio_buf_free(p->epio, buf);
		return -ESHUTDOWN;
	}
	return epio_write_buf(p->epio, ep, buf, len);
}

void plugin_buf_free(struct plugin *p, void *buf)
{
	if (p->epio)
		epio_buf_free(p->epio, buf);
}

size_t plugin_tx_queued(struct plugin *p, unsigned ep)
{
	return p->epio ? epio_queued(p->epio, ep) : 0;
}

unsigned plugin_max_packet(struct plugin *p, unsigned ep)
{
	return p->epio ? epio_max_packet(p->epio, ep) : 0;
}

void plugin_rx_enable(struct plugin *p, unsigned ep, bool on)
{
	if (p->epio)
		epio_rx_enable(p->epio, ep, on);
}

int plugin_request_switch(struct plugin *p, const char *request)
{
	const char *s[] = { request };

	return worker_send_strings(p, WORKER_SWITCH, s, 1);
}

int plugin_request_tcp(struct plugin *p, unsigned port)
{
	uint8_t buf[16];

	if (port > 65535)
		return -EINVAL;
	return worker_send(p, buf, wmsg_build_u32(buf, sizeof(buf), WORKER_TCP,
						  port));
}

void plugin_set_status(struct plugin *p, const char *key, const char *value)
{
	const char *s[] = { key, value };

	worker_send_strings(p, WORKER_STATUS, s, 2);
}

enum plugin_root plugin_root(struct plugin *p)
{
	if (p->root != PLUGIN_ROOT_ACTIVE && getuid() == 0)
		return PLUGIN_ROOT_PROFILE;
	return p->root;
}

int plugin_request_root(struct plugin *p, bool on)
{
	uint8_t buf[16];

	return worker_send(p, buf, wmsg_build_u32(buf, sizeof(buf), WORKER_ROOT,
						  on));
}

int plugin_spawn(struct plugin *p, const struct spawner_cmd *c,
		 spawner_done_fn done, void *data, struct spawner_call **call)
{
	if (!p->spawner)
		return -ENOSYS;
	return spawner_spawn(p->spawner, c, done, data, call);
}

void plugin_spawn_cancel(struct spawner_call *call)
{
	spawner_cancel(call);
}

/* Its declaration's lock_gated option, as the profile sets it; a plugin
 * that declares none is never gated. */
static bool plugin_lock_gated(struct plugin *p)
{
	bool gated = false;

	if (!optdesc_find(p->ops->meta ? p->ops->meta->options : NULL, "lock_gated"))
		return false;
	return plugin_option_bool(p, "lock_gated", &gated) == 0 && gated;
}

bool plugin_locked(struct plugin *p)
{
	return p->locked && plugin_lock_gated(p);
}

void plugin_lock_receive(struct plugin *p, const uint8_t *payload, size_t len)
{
	bool locked, before = plugin_locked(p);

	if (wmsg_parse_lock(payload, len, &locked) < 0) {
		log_warnx("malformed lock message from gadgetd");
		return;
	}
	p->locked = locked;
	if (plugin_locked(p) == before)
		return;
	log_info("%s: %s", p->instance, locked ? "locked" : "unlocked");
	if (p->have_priv && p->ops->lock)
		p->ops->lock(p->priv, locked);
}

_Static_assert(PLUGIN_INPUT_RELEASE == WMSG_GRAB_RELEASE && PLUGIN_INPUT_TAKE == WMSG_GRAB_TAKE &&
	       PLUGIN_INPUT_TOGGLE == WMSG_GRAB_TOGGLE, "plugin.h's requests are wmsg.h's");

int plugin_input_grab(struct plugin *p, unsigned how)
{
	uint8_t buf[16];

	if (how > WMSG_GRAB_TOGGLE)
		return -EINVAL;
	return worker_send(p, buf, wmsg_build_u32(buf, sizeof(buf), WORKER_INPUT_GRAB, how));
}

/* WORKER_INPUT: one fd, else the message is malformed. */
static void plugin_input_take(struct plugin *p, uint8_t *payload, size_t len,
			      int *fds, unsigned n_fds)
{
	const char *label;
	bool grabbed;
	uint32_t id;

	if (n_fds != 1 || wmsg_parse_input(payload, len, &id, &grabbed, &label) < 0) {
		log_warnx("malformed input message from gadgetd");
		while (n_fds--)
			close(fds[n_fds]);
		return;
	}
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	if (!p->ops->input || !p->have_priv) {
		close(fds[0]);
		return;
	}
	p->ops->input(p->priv, id, fds[0], grabbed, label);
}

bool plugin_input_receive(struct plugin *p, uint16_t type, uint8_t *payload,
			  size_t len, int *fds, unsigned n_fds)
{
	uint32_t v;

	if (type == WORKER_INPUT) {
		plugin_input_take(p, payload, len, fds, n_fds);
		return true;
	}
	if (type != WORKER_INPUT_GONE && type != WORKER_INPUT_STATE)
		return false;
	while (n_fds--)
		close(fds[n_fds]);
	if (wmsg_parse_u32(payload, len, &v) < 0 || (type == WORKER_INPUT_STATE && v > 1)) {
		log_warnx("malformed input message from gadgetd");
		return true;
	}
	if (!p->have_priv)
		return true;
	if (type == WORKER_INPUT_GONE && p->ops->input_gone)
		p->ops->input_gone(p->priv, v);
	else if (type == WORKER_INPUT_STATE && p->ops->input_state)
		p->ops->input_state(p->priv, v);
	return true;
}
