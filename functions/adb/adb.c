/*
 * adb: an ADB daemon as a gadgetd plugin. USB framing, the connection
 * (CNXN, AUTH) and the routing of OPEN to services live here; streams,
 * services and key handling live in the other adb_* modules.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "adb.h"
#include "adb_auth.h"
#include "adb_forward.h"
#include "adb_packet.h"
#include "adb_root.h"
#include "adb_shell.h"
#include "adb_stream.h"
#include "adb_sync.h"
#include "adb_tcp.h"
#include "log.h"
#include "loop.h"
#include "plugin.h"

#define ADB_EP_OUT 0
#define ADB_EP_IN 1
/*
 * What we announce in CNXN: only what is implemented and tested. Not
 * announced: cmd and abb/abb_exec (they reach Android's package manager
 * and binder services, which a Linux board has none of; an OPEN of
 * "cmd:" or "abb:" is refused as an unknown service), and the features
 * of Android's own tooling (apex, remount_shell, track_app...).
 */
#define ADB_FEATURES \
	"shell_v2,stat_v2,ls_v2,fixed_push_mkdir,fixed_push_symlink_timestamp," \
	"delayed_ack,sendrecv_v2,sendrecv_v2_brotli,sendrecv_v2_lz4," \
	"sendrecv_v2_zstd,sendrecv_v2_dry_run_send"
/*
 * Tokens one connection may be sent. A host that has run out of private
 * keys answers every token with its public key again, so without a limit a
 * host offering a known key it cannot sign with would loop forever.
 */
#define ADB_AUTH_MAX_TOKENS 16
/* What a host's messages make us log: at most this many lines a window. */
#define ADB_HOST_LOG_BURST 10
#define ADB_HOST_LOG_WINDOW_S 10

enum adb_state {
	ADB_STATE_OFFLINE,      /* no CNXN yet */
	ADB_STATE_UNAUTHORIZED, /* AUTH in progress or key not allowed */
	ADB_STATE_DEVICE,       /* online */
};

struct adb {
	struct plugin *p;
	/* Where this connection's messages go: the USB endpoints for the
	 * plugin's own, a socket for adb_tcp's (adb.h). */
	const struct adb_transport *tr;
	void *tr_data;
	/* The plugin's own connection (USB) holds the TCP transport;
	 * a connection attached by it points back to it. */
	struct adb_tcp *tcp;
	struct adb *main;
	struct adb_packet_reader *reader;
	struct adb_stream_mux *streams;
	struct adb_forward *fwd;
	struct adb_auth *auth;
	bool auth_on;
	enum adb_state state;
	uint32_t version;
	uint32_t max_payload; /* min(ours, the host's), as adbd answers */
	char banner[512];
	struct adb_shell_cfg shell;
	const char *reboot_cmd;
	/* Fingerprint of the unknown key the waiting host offered on this
	 * connection: `adb allow` of it sends this host a fresh token. */
	char waiting_fp[ADB_AUTH_FP_SIZE];
	/* The key of the `adb allow` waiting for gadgetd to write it. */
	char allow_fp[ADB_AUTH_FP_SIZE];
	unsigned tokens_sent; /* on this connection */
	/* Let in while locked: it waits, unauthorized, for adb_lock(). */
	bool held;
	bool lock_close;      /* the profile's lock_close */
	bool known_offered;   /* warned once per connection */
	struct log_burst host_log; /* lines the host's messages cause */
};

/*
 * Whether to log a line that the host's bytes caused. A hostile host can
 * send thousands of bad messages a second; the log must not carry them all.
 */
static bool adb_host_log_ok(struct adb *a)
{
	return log_burst_ok(&a->host_log);
}

static void adb_set_state(struct adb *a, enum adb_state st)
{
	static const char *names[] = {
		[ADB_STATE_OFFLINE] = "offline",
		[ADB_STATE_UNAUTHORIZED] = "unauthorized",
		[ADB_STATE_DEVICE] = "device",
	};

	if (a->state != st && adb_host_log_ok(a))
		log_info("adb: %s%s", a->main ? "tcp peer " : "", names[st]);
	a->state = st;
	if (!a->main)
		plugin_set_status(a->p, "state", names[st]);
}

/* adb expects each header in a transfer of its own: queue it first. */
static int adb_send_hdr(struct adb *a, uint32_t cmd, uint32_t arg0,
			uint32_t arg1, const void *payload, size_t len)
{
	uint8_t hdr[ADB_HDR_SIZE];

	adb_packet_encode(hdr, cmd, arg0, arg1, payload, len,
			  a->version < ADB_VERSION_SKIP_CHECKSUM);
	return a->tr->write(a->tr_data, hdr, sizeof(hdr));
}

static int adb_sent(int rc)
{
	if (rc < 0 && rc != -ESHUTDOWN)
		log_warnx("adb: cannot queue a message: %s", strerror(-rc));
	return rc;
}

static int adb_send(void *data, uint32_t cmd, uint32_t arg0, uint32_t arg1,
		    const void *payload, size_t len)
{
	struct adb *a = data;
	int rc = adb_send_hdr(a, cmd, arg0, arg1, payload, len);

	if (rc == 0 && len)
		rc = a->tr->write(a->tr_data, payload, len);
	return adb_sent(rc);
}

/* Payloads this small are copied, so a shell's few bytes do not hold a
 * megabyte buffer while they wait in the queue. */
#define ADB_COPY_MAX (16 * 1024)

static uint8_t *adb_buf_get(void *data, size_t size)
{
	struct adb *a = data;

	return plugin_buf_alloc(a->p, size);
}

static void adb_buf_put(void *data, uint8_t *buf)
{
	struct adb *a = data;

	plugin_buf_free(a->p, buf);
}

/* adb_send() for a payload in a runtime buffer, which it takes. */
static int adb_send_buf(void *data, uint32_t cmd, uint32_t arg0,
			uint32_t arg1, uint8_t *buf, size_t len)
{
	struct adb *a = data;
	int rc;

	if (len <= ADB_COPY_MAX) {
		rc = adb_send(a, cmd, arg0, arg1, buf, len);
		plugin_buf_free(a->p, buf);
		return rc;
	}
	rc = adb_send_hdr(a, cmd, arg0, arg1, buf, len);
	if (rc == 0)
		rc = a->tr->write_buf(a->tr_data, buf, len);
	else
		plugin_buf_free(a->p, buf);
	return adb_sent(rc);
}

static const struct adb_stream_mux_bufs adb_bufs = {
	.get = adb_buf_get,
	.send = adb_send_buf,
	.put = adb_buf_put,
};

static int adb_room(void *data)
{
	struct adb *a = data;

	return a->tr->queued(a->tr_data) < PLUGIN_TX_HIGH;
}

/* No host key waits any more: status (and monitors) say so. */
static void adb_waiting_clear(struct adb *a)
{
	if (a->waiting_fp[0])
		plugin_set_status(a->p, "waiting_key", "");
	a->waiting_fp[0] = '\0';
}

/*
 * The banner goes without a NUL, as AOSP's adbd sends it: hosts take the
 * whole payload as the string, and adb 34 read the last feature as
 * "sendrecv_v2_dry_run_send\0", a feature it does not know, and refused
 * `adb push -n` ("dry-run not supported by the device").
 */
static void adb_send_token(struct adb *a);

/* Locked: the host stays unauthorized, as Android keeps it, until
 * adb_lock() lets it in. A new token, not CNXN: adb 29 signs with its
 * other keys, offers its public key and waits, "unauthorized" (unanswered,
 * it would say "authorizing"). */
static void adb_hold(struct adb *a)
{
	if (!a->held && adb_host_log_ok(a))
		log_info("adb: locked: the %s stays unauthorized until unlock",
			 a->main ? "tcp peer" : "host");
	a->held = true;
	adb_set_state(a, ADB_STATE_UNAUTHORIZED);
	adb_send_token(a);
}

static void adb_send_cnxn(struct adb *a)
{
	if (plugin_locked(a->p)) {
		adb_hold(a);
		return;
	}
	a->held = false;
	adb_send(a, ADB_CNXN, a->version, a->max_payload, a->banner,
		 strlen(a->banner));
	adb_set_state(a, ADB_STATE_DEVICE);
	adb_waiting_clear(a);
}

static void adb_send_token(struct adb *a)
{
	uint8_t token[ADB_AUTH_TOKEN_SIZE];

	if (a->tokens_sent == ADB_AUTH_MAX_TOKENS) {
		log_warnx("adb: host failed %u authentication rounds; ignoring "
			  "it until it reconnects", ADB_AUTH_MAX_TOKENS);
		a->tokens_sent++;
		adb_auth_forget_token(a->auth);
		return;
	}
	if (a->tokens_sent > ADB_AUTH_MAX_TOKENS)
		return;
	a->tokens_sent++;
	if (adb_auth_new_token(a->auth, token) < 0) {
		log_warnx("adb: no random token; refusing the host");
		return;
	}
	adb_send(a, ADB_AUTH, ADB_AUTH_TOKEN, 0, token, sizeof(token));
}

/* Everything stream-related starts over (new CNXN, USB reset). */
static void adb_reset_connection(struct adb *a)
{
	adb_stream_mux_reset(a->streams);
	adb_stream_mux_set_delayed_ack(a->streams, false);
	adb_forward_reset(a->fwd);
	adb_packet_reader_reset(a->reader);
	adb_packet_reader_set_max(a->reader, ADB_MAX_PAYLOAD);
	/* Nothing proven, signed or offered on the old connection carries over. */
	adb_auth_reset(a->auth);
	adb_waiting_clear(a);
	a->tokens_sent = 0;
	a->known_offered = false;
	a->held = false;
}

static void adb_on_cnxn(struct adb *a, const struct adb_hdr *h,
			const uint8_t *payload)
{
	char host[256];
	size_t n = h->len < sizeof(host) - 1 ? h->len : sizeof(host) - 1;

	adb_reset_connection(a);
	if (h->arg0 < ADB_VERSION_MIN || h->arg1 < 256) {
		if (adb_host_log_ok(a))
			log_warnx("adb: CNXN with version %#x, max payload "
				  "%u: ignored", h->arg0, h->arg1);
		return;
	}
	a->version = h->arg0 < ADB_VERSION ? h->arg0 : ADB_VERSION;
	a->max_payload = h->arg1 < ADB_MAX_PAYLOAD ? h->arg1 : ADB_MAX_PAYLOAD;
	adb_stream_mux_set_max_payload(a->streams, a->max_payload);
	adb_stream_mux_set_delayed_ack(
	    a->streams, adb_packet_banner_has_feature(payload, h->len, "delayed_ack"));
	/* From now on a longer message is a broken host. */
	adb_packet_reader_set_max(a->reader, a->max_payload);
	memcpy(host, payload ? (const char *)payload : "", payload ? n : 0);
	host[payload ? n : 0] = '\0';
	host[strcspn(host, "\n")] = '\0';
	if (!a->main)
		plugin_set_status(a->p, "host", host);
	if (adb_host_log_ok(a))
		log_info("adb: %s connected: %s", a->main ? "tcp peer" : "host",
			 host);
	if (!a->auth_on) {
		adb_send_cnxn(a);
		return;
	}
	adb_set_state(a, ADB_STATE_UNAUTHORIZED);
	adb_auth_reload(a->auth);
	adb_send_token(a);
}

static void adb_on_public_key(struct adb *a, const uint8_t *payload, size_t len)
{
	char fp[ADB_AUTH_FP_SIZE];
	int rc = adb_auth_offer(a->auth, payload, len, fp);

	if (rc < 0) {
		if (adb_host_log_ok(a))
			log_warnx("adb: host sent a malformed public key");
		return;
	}
	if (rc == 1) {
		/*
		 * Public keys are not secret: offering a known one proves
		 * nothing. The host must sign a token with its private key.
		 */
		if (!a->known_offered && adb_host_log_ok(a))
			log_warnx("adb: host offered known key %s without "
				  "signing with it; sending a new token", fp);
		a->known_offered = true;
		adb_send_token(a);
		return;
	}
	memcpy(a->waiting_fp, fp, sizeof(fp));
	/* gadgetd tells `gadgetctl monitor` (an adb-key event). */
	plugin_set_status(a->p, "waiting_key", fp);
	adb_set_state(a, ADB_STATE_UNAUTHORIZED);
	if (adb_host_log_ok(a))
		log_warnx("adb: unknown host key %s; allow it with "
			  "`gadgetctl %s allow %s`", fp, plugin_instance(a->p),
			  fp);
}

static void adb_on_auth(struct adb *a, const struct adb_hdr *h,
			const uint8_t *payload)
{
	if (a->held) {
		/* A signature: on to its next key or its public key, after
		 * which it waits for the unlock. */
		if (h->arg0 == ADB_AUTH_SIGNATURE)
			adb_send_token(a);
		return;
	}
	if (!a->auth_on || a->state != ADB_STATE_UNAUTHORIZED)
		return;
	switch (h->arg0) {
	case ADB_AUTH_SIGNATURE:
		if (adb_auth_verify(a->auth, payload, h->len) == 0) {
			adb_send_cnxn(a);
			return;
		}
		/* Let the host try its next key, or offer its public key. */
		adb_send_token(a);
		return;
	case ADB_AUTH_RSAPUBLICKEY:
		adb_on_public_key(a, payload, h->len);
		return;
	}
	if (adb_host_log_ok(a))
		log_warnx("adb: AUTH type %u ignored", h->arg0);
}

/* Called by adb_packet_reader for each whole message. */
static int adb_on_message(void *data, const struct adb_hdr *h,
			  const uint8_t *payload)
{
	struct adb *a = data;
	char name[5];

	if (a->version && a->version < ADB_VERSION_SKIP_CHECKSUM &&
	    h->check != adb_packet_checksum(payload, h->len)) {
		if (adb_host_log_ok(a))
			log_warnx("adb: bad checksum: message dropped");
		return 0;
	}
	if (h->cmd == ADB_CNXN) {
		adb_on_cnxn(a, h, payload);
		return 0;
	}
	if (h->cmd == ADB_AUTH) {
		adb_on_auth(a, h, payload);
		return 0;
	}
	if (a->state != ADB_STATE_DEVICE) {
		adb_packet_cmd_name(h->cmd, name);
		log_debug("adb: %s before authorization ignored", name);
		return 0;
	}
	switch (h->cmd) {
	case ADB_OPEN:
		adb_stream_mux_on_open(a->streams, h->arg0, h->arg1, payload,
				       h->len);
		return 0;
	case ADB_OKAY:
		adb_stream_mux_on_okay(a->streams, h->arg0, h->arg1, payload,
				       h->len);
		return 0;
	case ADB_WRTE:
		adb_stream_mux_on_write(a->streams, h->arg0, h->arg1, payload,
					h->len);
		return 0;
	case ADB_CLSE:
		adb_stream_mux_on_close(a->streams, h->arg0, h->arg1);
		return 0;
	}
	adb_packet_cmd_name(h->cmd, name);
	if (adb_host_log_ok(a))
		log_warnx("adb: unknown command %#x (%s) ignored", h->cmd,
			  name);
	return 0;
}

/* A message's header, its payload still on the bus: a WRTE may be
 * acknowledged now (adb_stream_mux_on_write_head). Not where the payload
 * has a checksum to pass first, nor before the host is let in. */
static void adb_on_head(void *data, const struct adb_hdr *h)
{
	struct adb *a = data;

	if (h->cmd != ADB_WRTE || a->state != ADB_STATE_DEVICE ||
	    a->version < ADB_VERSION_SKIP_CHECKSUM)
		return;
	adb_stream_mux_on_write_head(a->streams, h->arg0, h->arg1);
}

/*
 * The reboot command started (its fds are not ours to use) or not. It
 * needs nothing of struct adb, which may be gone by then; a host can ask
 * for reboots in a loop, hence a limiter of its own.
 */
static void adb_reboot_spawned(void *data, int err,
			       const struct spawner_child *c)
{
	static struct log_burst burst = LOG_BURST_INIT(
		"messages about failed reboots", ADB_HOST_LOG_BURST,
		ADB_HOST_LOG_WINDOW_S);

	if (err < 0) {
		if (log_burst_ok(&burst))
			log_info("adb: reboot refused: %s", strerror(-err));
		return;
	}
	close(c->in);
	close(c->out);
	close(c->err);
	close(c->status);
}

static int adb_reboot_open(struct adb *a, const char *arg,
			   const struct adb_service_ops **ops, void **svc)
{
	static const char refused[] =
		"reboot refused: no reboot_command in the adb function\n";
	struct spawner_call *call;
	int rc;

	if (!a->reboot_cmd) {
		log_info("adb: reboot:%s refused", arg);
		return adb_stream_oneshot(refused, sizeof(refused) - 1, ops,
					  svc);
	}
	/* The spawner runs the profile's command; the target is all we
	 * name, and the spawner takes only a plain word (spawner.h). */
	rc = plugin_spawn(a->p, &(struct spawner_cmd){ .reboot = true,
		.cmd = arg }, adb_reboot_spawned, NULL, &call);
	if (rc < 0) {
		if (adb_host_log_ok(a))
			log_info("adb: reboot refused: %s", rc == -EBADMSG
				 ? "the target is not a plain word"
				 : strerror(-rc));
		return rc;
	}
	log_info("adb: reboot:%s: running %s", arg, a->reboot_cmd);
	/* The reboot takes the device down; nothing to say meanwhile. */
	return adb_stream_oneshot("", 0, ops, svc);
}

static int adb_open_service(void *data, struct adb_stream *s, const char *name,
			    const struct adb_service_ops **ops, void **svc)
{
	struct adb *a = data;
	char reply[4200];
	int rc;

	log_debug("adb: OPEN %s", name);
	if (!strcmp(name, "sync:"))
		return adb_sync_open(s, ops, svc);
	if (!strncmp(name, "reverse:", 8)) {
		rc = adb_forward_reverse(a->fwd, name + 8, reply, sizeof(reply));
		return adb_stream_oneshot(reply, rc, ops, svc);
	}
	if (!strncmp(name, "reboot:", 7))
		return adb_reboot_open(a, name + 7, ops, svc);
	rc = adb_tcp_open(a->main ? a->main->tcp : a->tcp, name, ops, svc);
	if (rc != -ENOENT)
		return rc;
	rc = adb_root_open(a->p, ADB_EP_IN, name, ops, svc);
	if (rc != -ENOENT)
		return rc;
	rc = adb_shell_open(s, name, &a->shell, ops, svc);
	if (rc != -ENOENT)
		return rc;
	rc = adb_forward_open(a->fwd, s, name, ops, svc);
	if (rc == -ENOENT)
		log_info("adb: unknown service \"%s\"", name);
	return rc;
}

static void adb_describe(struct plugin_desc *desc)
{
	desc->cls = 0xff;
	desc->subcls = 0x42;
	desc->proto = 0x01;
	desc->interface_string = "ADB Interface";
	desc->n_eps = 2;
	desc->eps[ADB_EP_OUT].type = PLUGIN_EP_BULK_OUT;
	/* adb hosts end each message with a short packet or a ZLP. */
	desc->eps[ADB_EP_OUT].rx_xfer = 128 * 1024;
	desc->eps[ADB_EP_IN].type = PLUGIN_EP_BULK_IN;
	desc->ms_compat_id = "WINUSB";
	desc->n_props = 1;
	desc->props[0].name = "DeviceInterfaceGUID";
	desc->props[0].value = "{F72FE0D4-CBCB-407d-8814-9ED673D0DD6B}";
}

/* As root, before the worker becomes uid:gid: the keys file is root's
 * (adb_auth_prepare()). */
static int adb_prepare(struct plugin *p, uid_t uid, gid_t gid)
{
	return adb_auth_prepare(plugin_option_or_default(p, "keys"), uid, gid);
}

static int adb_usb_write(void *t, const void *buf, size_t len)
{
	struct adb *a = t;

	return plugin_write(a->p, ADB_EP_IN, buf, len);
}

static int adb_usb_write_buf(void *t, void *buf, size_t len)
{
	struct adb *a = t;

	return plugin_write_buf(a->p, ADB_EP_IN, buf, len);
}

static size_t adb_usb_queued(void *t)
{
	struct adb *a = t;

	return plugin_tx_queued(a->p, ADB_EP_IN);
}

static const struct adb_transport adb_usb_transport = {
	.write = adb_usb_write,
	.write_buf = adb_usb_write_buf,
	.queued = adb_usb_queued,
};

/* What each connection has of its own: framing, streams, keys. */
static int adb_setup(struct adb *a)
{
	struct plugin *p = a->p;

	a->reader = adb_packet_reader_new(adb_on_message, a);
	if (a->reader)
		adb_packet_reader_set_head(a->reader, adb_on_head);
	a->streams = adb_stream_mux_new(plugin_loop(p), adb_send, &adb_bufs,
					adb_room, adb_open_service, a);
	a->fwd = a->streams ? adb_forward_new(a->streams, plugin_loop(p)) : NULL;
	a->auth = adb_auth_new(plugin_option_or_default(p, "keys"));
	if (!a->reader || !a->streams || !a->fwd || !a->auth)
		return -ENOMEM;
	adb_auth_reload(a->auth);
	return 0;
}

static void adb_finish(void *priv);

struct adb *adb_attach(struct adb *main, const struct adb_transport *tr,
		       void *tr_data)
{
	struct adb *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->p = main->p;
	c->tr = tr;
	c->tr_data = tr_data;
	c->main = main;
	c->auth_on = main->auth_on;
	c->lock_close = main->lock_close;
	c->shell = main->shell;
	c->reboot_cmd = main->reboot_cmd;
	memcpy(c->banner, main->banner, sizeof(c->banner));
	/* Each peer its own budget: one flooding peer does not silence
	 * what another's misbehaviour logs. adb_tcp caps the peers. */
	c->host_log = (struct log_burst)LOG_BURST_INIT(
		"messages about a tcp peer's behaviour", ADB_HOST_LOG_BURST,
		ADB_HOST_LOG_WINDOW_S);
	if (adb_setup(c) < 0) {
		adb_finish(c);
		return NULL;
	}
	return c;
}

void adb_detach(struct adb *c)
{
	if (c)
		adb_finish(c);
}

/* The framing broke (or a callback failed): start again from CNXN. */
static void adb_feed_failed(struct adb *c)
{
	adb_reset_connection(c);
	c->version = 0;
	adb_set_state(c, ADB_STATE_OFFLINE);
}

int adb_feed(struct adb *c, const uint8_t *buf, size_t len)
{
	int rc = adb_packet_reader_feed(c->reader, buf, len);

	if (rc < 0)
		adb_feed_failed(c);
	return rc;
}

uint8_t *adb_feed_room(struct adb *c, size_t *len)
{
	return adb_packet_reader_room(c->reader, len);
}

int adb_feed_filled(struct adb *c, size_t n)
{
	int rc = adb_packet_reader_filled(c->reader, n);

	if (rc < 0)
		adb_feed_failed(c);
	return rc;
}

void adb_pump(struct adb *c)
{
	adb_stream_mux_pump(c->streams);
}

bool adb_online(const struct adb *c)
{
	return c->state == ADB_STATE_DEVICE;
}

unsigned adb_streams(const struct adb *c)
{
	return adb_stream_mux_count(c->streams);
}

static int adb_init(struct plugin *p, struct plugin_desc *desc, void **priv)
{
	struct adb *a = calloc(1, sizeof(*a));
	int rc;

	if (!a)
		return -ENOMEM;
	a->p = p;
	a->host_log = (struct log_burst)LOG_BURST_INIT(
		"messages about the host's behaviour", ADB_HOST_LOG_BURST,
		ADB_HOST_LOG_WINDOW_S);
	if (plugin_option_bool(p, "auth", &a->auth_on) < 0 ||
	    plugin_option_bool(p, "lock_close", &a->lock_close) < 0) {
		free(a);
		return -EINVAL;
	}
	if (!a->auth_on)
		log_warnx("adb: auth = \"off\": ANY host connected to this USB "
			  "port gets a shell as this worker's user (uid %u)",
			  (unsigned)getuid());
	a->shell.shell = plugin_option_or_default(p, "shell");
	a->shell.p = p;
	a->reboot_cmd = plugin_option(p, "reboot_command");
	snprintf(a->banner, sizeof(a->banner),
		 "device::ro.product.name=%s;ro.product.model=%s;"
		 "ro.product.device=%s;features=" ADB_FEATURES,
		 plugin_option_or_default(p, "product"),
		 plugin_option_or_default(p, "model"),
		 plugin_option_or_default(p, "device"));
	a->tr = &adb_usb_transport;
	a->tr_data = a;
	rc = adb_tcp_new(p, a, &a->tcp);
	if (rc == 0 && adb_setup(a) < 0)
		rc = -ENOMEM;
	if (rc < 0) {
		adb_finish(a);
		return rc;
	}
	/* A peer closing a pipe or socket must be an error, not a death. */
	signal(SIGPIPE, SIG_IGN);
	adb_describe(desc);
	adb_set_state(a, ADB_STATE_OFFLINE);
	*priv = a;
	return 0;
}

static void adb_finish(void *priv)
{
	struct adb *a = priv;

	/* The TCP peers' connections first: their streams use the loop. */
	adb_tcp_free(a->tcp);
	adb_forward_free(a->fwd);
	adb_stream_mux_free(a->streams);
	adb_packet_reader_free(a->reader);
	adb_auth_free(a->auth);
	free(a);
}

static void adb_enable(void *priv)
{
	struct adb *a = priv;

	/* The host speaks first (CNXN); start from a clean slate. */
	adb_reset_connection(a);
	adb_set_state(a, ADB_STATE_OFFLINE);
}

static void adb_disable(void *priv)
{
	struct adb *a = priv;

	adb_reset_connection(a);
	a->version = 0;
	adb_set_state(a, ADB_STATE_OFFLINE);
}

static void adb_rx(void *priv, unsigned ep, const uint8_t *data, size_t len)
{
	struct adb *a = priv;
	int rc;

	if (ep != ADB_EP_OUT || len == 0)
		return; /* zero-length packets carry nothing in ADB */
	rc = adb_feed(a, data, len);
	if (rc < 0 && adb_host_log_ok(a))
		log_warnx("adb: %s from the host; resetting the connection",
			  rc == -EMSGSIZE ? "oversized message"
					  : "malformed message header");
}

static void adb_tx_drained(void *priv, unsigned ep)
{
	struct adb *a = priv;

	adb_stream_mux_pump(a->streams);
}

/*
 * The admin allowed the key the waiting host offered. Offering a public
 * key proves nothing (anyone who saw it on a wire can offer it). A host
 * that signed one of this connection's tokens with the key before it
 * offered it (AOSP's flow: sign, offer, wait for CNXN) has proven it holds
 * the key and is let in at once. Any other gets a fresh token, and only a
 * signature over it by an allowed key brings it online; adb hosts answer
 * it: having run out of keys, they start over with their first one. The
 * host has a full round of tokens again, since it may hold several keys
 * before the one just allowed. 1 when the host is online.
 */
static int adb_challenge_allowed(struct adb *a, const char *fp)
{
	if (adb_auth_signed_with(a->auth, fp)) {
		log_info("adb: the waiting host had signed a token with the "
			 "allowed key: online");
		adb_send_cnxn(a);
		return 1;
	}
	log_info("adb: sent the waiting host a new token to sign with the "
		 "allowed key");
	adb_waiting_clear(a);
	a->tokens_sent = 0;
	a->known_offered = false;
	adb_send_token(a);
	return 0;
}

/* `adb keys` over every connection: USB's and each TCP peer's. */
struct adb_keys_walk {
	char *reply;
	size_t size, used;
};

static void adb_keys_one(struct adb *c, void *data)
{
	struct adb_keys_walk *k = data;

	if (k->used + 1 >= k->size)
		return;
	adb_auth_list_pending(c->auth, k->reply + k->used, k->size - k->used);
	k->used += strlen(k->reply + k->used);
}

/*
 * `adb allow FP` over every connection. The key was offered on one (or
 * several: the same host over USB and TCP). gadgetd appends its line to
 * the keys file (plugin_keys_append()), which is root's so that an
 * allowed host's shell, running as this worker's user, cannot add keys
 * to it or empty it. Once the line is on disk every connection reads the
 * file again, and each whose host waits with that key gets a fresh token.
 */
struct adb_allow_walk {
	const char *fp;
	const char *line;    /* the pending key's line, from where it waits */
	unsigned challenged, online;
};

static void adb_allow_find(struct adb *c, void *data)
{
	struct adb_allow_walk *w = data;

	if (!w->line)
		w->line = adb_auth_pending_line(c->auth, w->fp);
}

static void adb_allowed_one(struct adb *c, void *data)
{
	struct adb_allow_walk *w = data;

	adb_auth_allowed(c->auth, w->fp);
	if (c->state == ADB_STATE_UNAUTHORIZED &&
	    !strcasecmp(c->waiting_fp, w->fp)) {
		if (adb_challenge_allowed(c, w->fp))
			w->online++;
		else
			w->challenged++;
	}
}

/* gadgetd's answer to the allow's plugin_keys_append(). */
static void adb_allow_written(void *data, int rc)
{
	struct adb *a = data;
	struct adb_allow_walk w = { .fp = a->allow_fp };
	const char *keys = plugin_option_or_default(a->p, "keys");
	char reply[PATH_MAX + 160];

	if (rc < 0) {
		log_warnx("adb: key %s not allowed: gadgetd could not add it to "
			  "%s: %s", w.fp, keys, strerror(-rc));
		snprintf(reply, sizeof(reply), "%s: not allowed: gadgetd could "
			 "not add it to %s: %s\n", w.fp, keys, strerror(-rc));
		plugin_command_reply(a->p, rc, reply);
		return;
	}
	log_info("adb: key %s allowed", w.fp);
	adb_allowed_one(a, &w);
	adb_tcp_foreach(a->tcp, adb_allowed_one, &w);
	if (w.challenged)
		snprintf(reply, sizeof(reply), "allowed %s; the waiting host "
			 "gets in once it signs a new token with it\n", w.fp);
	else if (w.online)
		snprintf(reply, sizeof(reply), "allowed %s; the waiting host "
			 "had signed a token with it: it is online\n", w.fp);
	else
		snprintf(reply, sizeof(reply), "allowed %s\n", w.fp);
	plugin_command_reply(a->p, 0, reply);
}

static int adb_allow(struct adb *a, const char *fp, char *reply, size_t size)
{
	struct adb_allow_walk w = { .fp = fp };
	int rc;

	adb_allow_find(a, &w);
	adb_tcp_foreach(a->tcp, adb_allow_find, &w);
	if (!w.line) {
		snprintf(reply, size, "%s: no such pending key\n", fp);
		return -ENOENT;
	}
	rc = plugin_keys_append(a->p, w.line, adb_allow_written, a);
	if (rc < 0) {
		snprintf(reply, size, "%s: cannot ask gadgetd to add it to the "
			 "keys file: %s\n", fp, rc == -EBUSY ?
			 "another command is still running" : strerror(-rc));
		return rc;
	}
	/* Matched a pending fingerprint: it fits. */
	snprintf(a->allow_fp, sizeof(a->allow_fp), "%s", fp);
	return PLUGIN_COMMAND_LATER;
}

static int adb_command(void *priv, int argc, char **argv, char *reply,
		       size_t size)
{
	struct adb *a = priv;
	struct adb_keys_walk k = { .reply = reply, .size = size };

	if (argc == 1 && !strcmp(argv[0], "keys")) {
		reply[0] = '\0';
		adb_keys_one(a, &k);
		adb_tcp_foreach(a->tcp, adb_keys_one, &k);
		if (!reply[0])
			snprintf(reply, size, "no pending keys\n");
		return 0;
	}
	if (argc == 2 && !strcmp(argv[0], "allow"))
		return adb_allow(a, argv[1], reply, size);
	snprintf(reply, size, "usage: keys | allow FINGERPRINT\n");
	return -EINVAL;
}

/* The device was locked or unlocked (plugin.h's ops->lock), for one
 * connection: USB's or a TCP peer's. */
static void adb_lock_one(struct adb *c, void *data)
{
	bool locked = *(const bool *)data;

	if (!locked && c->held) {
		log_info("adb: unlocked: the waiting %s is online",
			 c->main ? "tcp peer" : "host");
		adb_send_cnxn(c);
	} else if (locked && c->state == ADB_STATE_DEVICE && c->lock_close) {
		log_info("adb: locked: closing the %s's session (lock_close)",
			 c->main ? "tcp peer" : "host");
		adb_reset_connection(c);
		adb_hold(c);
	}
}

static void adb_lock(void *priv, bool locked)
{
	struct adb *a = priv;

	adb_lock_one(a, &locked);
	adb_tcp_foreach(a->tcp, adb_lock_one, &locked);
}

static void adb_listen(void *priv, const int *fds, unsigned n, unsigned port)
{
	struct adb *a = priv;

	adb_tcp_listen(a->tcp, fds, n, port);
}

extern const struct plugin_meta adb_meta; /* adb_meta.c */

const struct plugin_ops gadgetd_plugin = {
	.abi_version = PLUGIN_ABI_VERSION,
	.name = "adb",
	.meta = &adb_meta,
	.prepare = adb_prepare,
	.init = adb_init,
	.finish = adb_finish,
	.enable = adb_enable,
	.disable = adb_disable,
	.rx = adb_rx,
	.tx_drained = adb_tx_drained,
	.command = adb_command,
	.listen = adb_listen,
	.lock = adb_lock,
};
