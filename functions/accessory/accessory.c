#include "accessory.h"
#include "accessory_ctrl.h"
#include "accessory_info.h"
#include "log.h"
#include "loop.h"
#include "plugin.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

extern const struct plugin_meta accessory_meta; /* accessory_meta.c */

/* Bytes waiting to be written to the application's socket. */
struct accessory_buf {
	uint8_t *data;
	size_t off, len, cap;
};

struct accessory {
	struct plugin *p;
	struct loop *loop;
	bool data_mode;
	struct accessory_ctrl *ctrl;
	/* Data mode: the strings of the accessory session, from the state
	 * file or a later START. A GET_PROTOCOL resets only the handshake in
	 * accessory_ctrl, not what the application and status were told. */
	struct accessory_info info;
	char state_dir[PATH_MAX];
	char switch_set[64];
	struct loop_watch *start_timer;
	bool switch_asked;
	/* data mode */
	char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct loop_watch *listen_w, *client_w;
	/* The epoll mask set on client_w, and whether the peer hung up. */
	uint32_t client_mask;
	bool client_hup;
	struct loop_watch *claim_timer, *disc_timer, *revert_timer;
	uint64_t claim_ms, disc_ms;
	gid_t sock_gid; /* (gid_t)-1: leave the group alone */
	bool enabled, claimed, reverting;
	/* Reads on bulk OUT are stopped until out is written. */
	bool rx_paused;
	/* The last IN transfer ended on a packet boundary: a ZLP is due
	 * when the application pauses. */
	bool zlp_due;
	/* IN bytes queued since enable, to see whether the host reads. */
	uint64_t in_written;
	struct accessory_buf out;
	const char *state;
};

static const struct accessory_info *accessory_strings(struct accessory *a)
{
	return a->data_mode ? &a->info : accessory_ctrl_info(a->ctrl);
}

static void accessory_publish(struct accessory *a)
{
	const struct accessory_info *ai = accessory_strings(a);
	char num[16];
	unsigned i;

	for (i = 0; i < ACCESSORY_INFO_N; i++)
		plugin_set_status(a->p, accessory_info_key(i), ai->s[i]);
	snprintf(num, sizeof(num), "%u", accessory_ctrl_hid_count(a->ctrl));
	plugin_set_status(a->p, "hid", num);
	plugin_set_status(a->p, "audio",
			  accessory_ctrl_audio_mode(a->ctrl) ? "on" : "off");
	if (a->data_mode)
		plugin_set_status(a->p, "client", a->client_w ? "yes" : "no");
	plugin_set_status(a->p, "state", a->state);
}

static void accessory_set_state(struct accessory *a, const char *state)
{
	if (a->state == state)
		return;
	log_info("accessory: %s -> %s", a->state, state);
	a->state = state;
	plugin_set_status(a->p, "state", state);
}

static int accessory_buf_put(struct accessory_buf *b, const void *data,
			     size_t len, bool front)
{
	size_t need = b->len - b->off + len;

	if (b->off && (front || b->len + len > b->cap)) {
		memmove(b->data, b->data + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
	}
	if (need > b->cap) {
		size_t cap = b->cap ? b->cap : 16384;
		uint8_t *d;

		while (cap < need)
			cap *= 2;
		d = realloc(b->data, cap);
		if (!d)
			return -ENOMEM;
		b->data = d;
		b->cap = cap;
	}
	if (front) {
		memmove(b->data + len, b->data, b->len);
		memcpy(b->data, data, len);
	} else {
		memcpy(b->data + b->len, data, len);
	}
	b->len += len;
	return 0;
}

static size_t accessory_buf_size(const struct accessory_buf *b)
{
	return b->len - b->off;
}

static void accessory_buf_free(struct accessory_buf *b)
{
	free(b->data);
	*b = (struct accessory_buf){ 0 };
}

static void accessory_rx_pause(struct accessory *a, bool pause)
{
	if (a->rx_paused == pause)
		return;
	a->rx_paused = pause;
	plugin_rx_enable(a->p, ACCESSORY_EP_OUT, !pause);
}

/* Reading the application only makes sense while the host is there and
 * the IN queue has room: otherwise its writes block, which is the
 * backpressure it gets. */
static bool accessory_can_read(struct accessory *a)
{
	return a->enabled && !a->reverting &&
	       plugin_tx_queued(a->p, ACCESSORY_EP_IN) < PLUGIN_TX_HIGH;
}

static void accessory_client_events(struct accessory *a)
{
	uint32_t ev = 0;

	if (!a->client_w)
		return;
	if (accessory_can_read(a))
		ev |= EPOLLIN;
	else if (a->client_hup)
		/* epoll reports a hang-up whatever the mask; edge-triggered
		 * it does so once instead of spinning until we can read the
		 * rest. */
		ev |= EPOLLET;
	if (accessory_buf_size(&a->out) && !a->client_hup)
		ev |= EPOLLOUT;
	if (ev != a->client_mask && loop_watch_set_events(a->client_w, ev) == 0)
		a->client_mask = ev;
}

static void accessory_client_close(struct accessory *a, const char *why)
{
	if (!a->client_w)
		return;
	log_info("accessory: application connection closed: %s", why);
	loop_watch_remove(a->client_w);
	a->client_w = NULL;
	a->client_mask = 0;
	a->client_hup = false;
	plugin_set_status(a->p, "client", "no");
}

/* Write what is held for the application; stop the host while it lags. */
static void accessory_flush(struct accessory *a)
{
	struct accessory_buf *b = &a->out;

	while (a->client_w && !a->client_hup && accessory_buf_size(b)) {
		ssize_t n = send(loop_watch_fd(a->client_w), b->data + b->off,
				 accessory_buf_size(b), MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			/* The application left. What it wrote before may still
			 * wait to be read, so the connection stays until then;
			 * what was meant for it is lost. */
			log_warnx("accessory: application gone (%s): %zu bytes for it dropped",
				  strerror(errno), accessory_buf_size(b));
			a->client_hup = true;
			b->off = b->len = 0;
			break;
		}
		b->off += n;
	}
	if (!accessory_buf_size(b))
		b->off = b->len = 0;
	accessory_rx_pause(a, accessory_buf_size(b) > 0);
	accessory_client_events(a);
}

static void accessory_revert(struct accessory *a, const char *why)
{
	if (a->reverting)
		return;
	log_info("accessory: %s; asking gadgetd to revert", why);
	a->reverting = true;
	accessory_set_state(a, "reverting");
	if (a->claim_timer)
		loop_timer_rearm(a->claim_timer, 0);
	if (a->disc_timer)
		loop_timer_rearm(a->disc_timer, 0);
	accessory_client_close(a, "accessory gone");
	plugin_request_switch(a->p, "revert");
}

/* The host showed it uses the interface. */
static void accessory_claimed(struct accessory *a)
{
	if (!a->data_mode || a->reverting || !a->enabled)
		return;
	if (!a->claimed) {
		a->claimed = true;
		loop_timer_rearm(a->claim_timer, 0);
	}
	accessory_set_state(a, "connected");
}

static void accessory_claim_expired(struct loop_watch *w, void *data)
{
	struct accessory *a = data;

	/* The host may have read what the application sent without sending
	 * anything itself. */
	if (a->enabled &&
	    a->in_written > plugin_tx_queued(a->p, ACCESSORY_EP_IN)) {
		accessory_claimed(a);
		return;
	}
	accessory_revert(a, "the host did not claim the accessory interface");
}

static void accessory_disc_expired(struct loop_watch *w, void *data)
{
	accessory_revert(data, "the host disconnected");
}

static void accessory_revert_asked(struct loop_watch *w, void *data)
{
	accessory_revert(data, "asked by gadgetctl");
}

static void accessory_start_switch(struct loop_watch *w, void *data)
{
	struct accessory *a = data;
	int r;

	log_info("accessory: START from \"%s\" \"%s\": switching to %s",
		 accessory_ctrl_info(a->ctrl)->s[ACCESSORY_INFO_MANUFACTURER],
		 accessory_ctrl_info(a->ctrl)->s[ACCESSORY_INFO_MODEL],
		 a->switch_set);
	r = plugin_request_switch(a->p, a->switch_set);
	if (r < 0)
		log_warnx("accessory: switch request failed: %s", strerror(-r));
}

static int accessory_on_start(void *data)
{
	struct accessory *a = data;
	int r;

	/* Save first: the data instance must find the strings, and a failure
	 * here is still reported to the host as a stall. */
	r = accessory_info_save(accessory_ctrl_info(a->ctrl), a->state_dir);
	if (r < 0) {
		log_warnx("accessory: cannot save %s/%s: %s", a->state_dir,
			  ACCESSORY_INFO_FILE, strerror(-r));
		return r;
	}
	if (a->data_mode) {
		/* Already in accessory mode: only the strings change. */
		a->info = *accessory_ctrl_info(a->ctrl);
		return 0;
	}
	/* A host repeating START gets the same switch, asked for once. */
	if (a->switch_asked)
		return 0;
	a->switch_asked = true;
	accessory_set_state(a, "switching");
	loop_timer_rearm(a->start_timer, ACCESSORY_START_DELAY_MS);
	return 0;
}

static const struct accessory_ctrl_ops accessory_ctrl_ops = {
	.start = accessory_on_start,
};

/* Move what the application wrote to bulk IN, until it pauses or the
 * queue is full (then tx_drained resumes). */
static void accessory_client_read(struct accessory *a, int fd)
{
	static uint8_t buf[ACCESSORY_IN_CHUNK];
	unsigned mps = plugin_max_packet(a->p, ACCESSORY_EP_IN);
	ssize_t n;
	int r;

	while (accessory_can_read(a)) {
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			/* The application paused: end the host's transfer if
			 * the last packet was a full one. */
			if (a->zlp_due && plugin_write(a->p, ACCESSORY_EP_IN, NULL, 0) == 0)
				a->zlp_due = false;
			break;
		}
		if (n <= 0) {
			/* The host must see the end of the last transfer also
			 * when the application leaves. */
			if (a->zlp_due)
				plugin_write(a->p, ACCESSORY_EP_IN, NULL, 0);
			a->zlp_due = false;
			accessory_client_close(a, n ? strerror(errno) : "end of file");
			return;
		}
		r = plugin_write(a->p, ACCESSORY_EP_IN, buf, n);
		if (r < 0) {
			/* Only when the host just went away: the bytes are
			 * lost like those the runtime dropped. */
			log_warnx("accessory: %zd bytes for the host dropped: %s",
				  n, strerror(-r));
			break;
		}
		a->in_written += n;
		a->zlp_due = mps && n % mps == 0;
	}
	accessory_client_events(a);
}

static void accessory_client_io(struct loop_watch *w, int fd, uint32_t events,
				void *data)
{
	struct accessory *a = data;

	if (events & (EPOLLHUP | EPOLLERR))
		a->client_hup = true;
	if (events & EPOLLOUT)
		accessory_flush(a);
	if (!a->client_w)
		return;
	if (accessory_can_read(a))
		accessory_client_read(a, fd);
	else
		accessory_client_events(a);
}

static int accessory_client_hello(struct accessory *a)
{
	char hdr[ACCESSORY_INFO_TEXT_MAX];
	int n = accessory_info_format(accessory_strings(a), hdr, sizeof(hdr));

	if (n < 0)
		return n;
	/* The header goes before host data already held for the client. */
	return accessory_buf_put(&a->out, hdr, n, true);
}

static void accessory_listen_io(struct loop_watch *w, int fd, uint32_t events,
				void *data)
{
	struct accessory *a = data;
	int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (cfd < 0) {
		if (errno != EAGAIN && errno != EINTR)
			log_warn("accessory: accept");
		return;
	}
	/* A connection that hung up with data the host could not take yet
	 * gives way to a new one. */
	if (a->client_w && a->client_hup)
		accessory_client_close(a, "replaced by a new connection");
	if (a->client_w || a->reverting) {
		log_warnx("accessory: refusing a second application connection");
		close(cfd);
		return;
	}
	a->client_w = loop_add_fd(a->loop, cfd, 0, accessory_client_io, a);
	a->client_mask = 0;
	if (!a->client_w) {
		log_warn("accessory: watching the application");
		close(cfd);
		return;
	}
	if (accessory_client_hello(a) < 0) {
		accessory_client_close(a, "out of memory");
		return;
	}
	log_info("accessory: application connected");
	plugin_set_status(a->p, "client", "yes");
	accessory_flush(a);
}

static int accessory_listen(struct accessory *a)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, r;

	/* Replace a socket left by a crashed worker, nothing else. */
	if (lstat(a->sock_path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			log_warnx("accessory: %s exists and is not a socket",
				  a->sock_path);
			return -EEXIST;
		}
		unlink(a->sock_path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memcpy(sa.sun_path, a->sock_path, strlen(a->sock_path));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chown(a->sock_path, (uid_t)-1, a->sock_gid) < 0 ||
	    chmod(a->sock_path, 0660) < 0 || listen(fd, 4) < 0) {
		r = -errno;
		log_warn("accessory: socket %s", a->sock_path);
		close(fd);
		unlink(a->sock_path);
		return r;
	}
	a->listen_w = loop_add_fd(a->loop, fd, EPOLLIN, accessory_listen_io, a);
	if (!a->listen_w) {
		r = -errno;
		close(fd);
		unlink(a->sock_path);
		return r;
	}
	return 0;
}

/* plugin_option() in the shape plugin_meta's switch_set takes. */
static const char *accessory_option(const char *key, const void *ctx)
{
	return plugin_option((struct plugin *)ctx, key);
}

static int accessory_opt_str(struct plugin *p, const char *key,
			     const char *def, char *out, size_t size)
{
	const char *v = plugin_option_or_default(p, key);

	if (!v)
		v = def;
	if (!v || !*v || strlen(v) >= size) {
		log_warnx("accessory: option %s: \"%s\" is empty or too long",
			  key, v);
		return -EINVAL;
	}
	strcpy(out, v);
	return 0;
}

static int accessory_opt_group(struct accessory *a)
{
	const char *v = plugin_option(a->p, "socket_group");
	struct group *g;

	a->sock_gid = (gid_t)-1;
	if (!v)
		return 0;
	g = getgrnam(v);
	if (!g) {
		log_warnx("accessory: option socket_group: no group \"%s\"", v);
		return -EINVAL;
	}
	a->sock_gid = g->gr_gid;
	return 0;
}

static int accessory_options(struct accessory *a)
{
	const char *mode = plugin_option(a->p, "mode");
	char def_sock[PATH_MAX + sizeof(ACCESSORY_SOCKET_NAME) + 1];
	long long claim_ms, disc_ms;
	bool with_adb;
	int r;

	if (!mode || (strcmp(mode, "control") && strcmp(mode, "data"))) {
		log_warnx("accessory: option mode must be \"control\" or \"data\"");
		return -EINVAL;
	}
	a->data_mode = !strcmp(mode, "data");
	/* gadgetd makes this folder for the worker's user (0750). */
	r = accessory_opt_str(a->p, "state_dir", NULL, a->state_dir,
			      sizeof(a->state_dir));
	/* Read for the check alone: switch_set applies it. */
	r = r ? r : plugin_option_bool(a->p, "with_adb", &with_adb);
	/* The set gadgetd lets this worker ask for (the same rule). */
	r = r ? r : accessory_opt_str(a->p, "accessory_set",
				      accessory_meta.switch_set(accessory_option, a->p),
				      a->switch_set, sizeof(a->switch_set));
	r = r ? r : plugin_option_int(a->p, "claim_timeout_ms", &claim_ms);
	r = r ? r : plugin_option_int(a->p, "disconnect_timeout_ms", &disc_ms);
	r = r ? r : accessory_opt_group(a);
	if (r)
		return r;
	/* Never negative: the declaration's range starts at 0. */
	a->claim_ms = (uint64_t)claim_ms;
	a->disc_ms = (uint64_t)disc_ms;
	snprintf(def_sock, sizeof(def_sock), "%s/%s", a->state_dir,
		 ACCESSORY_SOCKET_NAME);
	return accessory_opt_str(a->p, "socket", def_sock, a->sock_path,
				 sizeof(a->sock_path));
}

static void accessory_describe(struct accessory *a, struct plugin_desc *desc)
{
	desc->cls = 0xff;
	desc->subcls = 0xff;
	desc->proto = 0;
	desc->all_ctrl_recip = true;
	if (!a->data_mode) {
		/* f_fs accepts an interface without endpoints; the control
		 * instance needs nothing but ep0. */
		desc->n_eps = 0;
		return;
	}
	desc->interface_string = ACCESSORY_INTERFACE_STRING;
	desc->n_eps = 2;
	desc->eps[ACCESSORY_EP_IN].type = PLUGIN_EP_BULK_IN;
	desc->eps[ACCESSORY_EP_OUT].type = PLUGIN_EP_BULK_OUT;
}

static int accessory_data_init(struct accessory *a)
{
	int r = accessory_info_load(&a->info, a->state_dir);

	if (r < 0)
		log_warnx("accessory: no strings from %s/%s (%s); the application gets empty ones",
			  a->state_dir, ACCESSORY_INFO_FILE, strerror(-r));
	a->claim_timer = loop_add_timer(a->loop, a->claim_ms,
					accessory_claim_expired, a);
	a->disc_timer = loop_add_timer(a->loop, 0, accessory_disc_expired, a);
	a->revert_timer = loop_add_timer(a->loop, 0, accessory_revert_asked, a);
	if (!a->claim_timer || !a->disc_timer || !a->revert_timer)
		return -ENOMEM;
	a->state = "waiting";
	return accessory_listen(a);
}

static void accessory_finish(void *priv);

static int accessory_init(struct plugin *p, struct plugin_desc *desc,
			  void **priv)
{
	struct accessory *a = calloc(1, sizeof(*a));
	int r;

	if (!a)
		return -ENOMEM;
	a->p = p;
	a->loop = plugin_loop(p);
	a->state = "idle";
	r = accessory_options(a);
	if (r)
		goto fail;
	a->ctrl = accessory_ctrl_new(&accessory_ctrl_ops, a);
	a->start_timer = loop_add_timer(a->loop, 0, accessory_start_switch, a);
	r = a->ctrl && a->start_timer ? 0 : -ENOMEM;
	if (!r && a->data_mode)
		r = accessory_data_init(a);
	if (r)
		goto fail;
	accessory_describe(a, desc);
	accessory_publish(a);
	*priv = a;
	return 0;
fail:
	accessory_finish(a);
	return r;
}

static void accessory_finish(void *priv)
{
	struct accessory *a = priv;

	accessory_client_close(a, "plugin stopped");
	if (a->listen_w) {
		loop_watch_remove(a->listen_w);
		unlink(a->sock_path);
	}
	loop_watch_remove(a->claim_timer);
	loop_watch_remove(a->disc_timer);
	loop_watch_remove(a->revert_timer);
	loop_watch_remove(a->start_timer);
	accessory_ctrl_free(a->ctrl);
	accessory_buf_free(&a->out);
	free(a);
}

static void accessory_enable(void *priv)
{
	struct accessory *a = priv;

	a->enabled = true;
	a->in_written = 0;
	a->zlp_due = false;
	if (!a->data_mode || a->reverting)
		return;
	loop_timer_rearm(a->disc_timer, 0);
	/* A host that was already using us before a reset still is. */
	if (a->claimed)
		accessory_set_state(a, "connected");
	/* The runtime restarts reads on enable; keep them stopped while
	 * bytes wait for the application. */
	if (a->rx_paused)
		plugin_rx_enable(a->p, ACCESSORY_EP_OUT, false);
	accessory_client_events(a);
}

static void accessory_disable(void *priv)
{
	struct accessory *a = priv;
	bool was = a->enabled;

	a->enabled = false;
	a->zlp_due = false;
	if (!a->data_mode || a->reverting)
		return;
	accessory_client_events(a);
	if (was && a->disc_ms) {
		accessory_set_state(a, "disconnected");
		loop_timer_rearm(a->disc_timer, a->disc_ms);
	}
}

static int accessory_setup(void *priv, const struct usb_ctrlrequest *req,
			   uint8_t *in)
{
	struct accessory *a = priv;
	int r = accessory_ctrl_setup(a->ctrl, req, in);

	if (r >= 0)
		accessory_claimed(a);
	accessory_publish(a);
	return r;
}

static void accessory_setup_data(void *priv, const struct usb_ctrlrequest *req,
				 const uint8_t *data, size_t len)
{
	struct accessory *a = priv;

	accessory_ctrl_data(a->ctrl, req, data, len);
	accessory_publish(a);
}

static void accessory_rx(void *priv, unsigned ep, const uint8_t *data,
			 size_t len)
{
	struct accessory *a = priv;

	if (!a->data_mode || ep != ACCESSORY_EP_OUT)
		return;
	accessory_claimed(a);
	if (!len || a->reverting)
		return;
	if (accessory_buf_size(&a->out) + len > ACCESSORY_OUT_HOLD_MAX) {
		log_warnx("accessory: %zu bytes from the host dropped: the application does not read",
			  len);
		accessory_rx_pause(a, true);
		return;
	}
	if (accessory_buf_put(&a->out, data, len, false) < 0) {
		log_warnx("accessory: %zu bytes from the host dropped: out of memory",
			  len);
		return;
	}
	accessory_flush(a);
}

static void accessory_tx_drained(void *priv, unsigned ep)
{
	struct accessory *a = priv;

	if (!a->data_mode)
		return;
	accessory_claimed(a);
	if (a->client_w && accessory_can_read(a))
		accessory_client_read(a, loop_watch_fd(a->client_w));
}

static int accessory_command(void *priv, int argc, char **argv, char *reply,
			     size_t reply_size)
{
	struct accessory *a = priv;

	if (argc == 1 && !strcmp(argv[0], "revert")) {
		if (!a->data_mode) {
			snprintf(reply, reply_size, "not in accessory mode\n");
			return -EINVAL;
		}
		/* After the reply: gadgetd tears this worker down on the
		 * switch, and the reply must not get lost with it. */
		loop_timer_rearm(a->revert_timer, ACCESSORY_START_DELAY_MS);
		snprintf(reply, reply_size, "reverting\n");
		return 0;
	}
	snprintf(reply, reply_size,
		 "usage: revert\n(%lu control requests accepted, %lu stalled)\n",
		 accessory_ctrl_accepted(a->ctrl), accessory_ctrl_stalled(a->ctrl));
	return -EINVAL;
}

const struct plugin_ops gadgetd_plugin = {
	.abi_version = PLUGIN_ABI_VERSION,
	.name = "accessory",
	.meta = &accessory_meta,
	.init = accessory_init,
	.finish = accessory_finish,
	.enable = accessory_enable,
	.disable = accessory_disable,
	.setup = accessory_setup,
	.setup_data = accessory_setup_data,
	.rx = accessory_rx,
	.tx_drained = accessory_tx_drained,
	.command = accessory_command,
};
