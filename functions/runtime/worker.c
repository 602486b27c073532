/*
 * gadgetd-worker: hosts one plugin on one FunctionFS instance.
 *
 *   gadgetd-worker -P PLUGIN.so -i INSTANCE -d FFS_DIR [-u USER] [-g GROUP]
 *                  [-c CAPS] [-r allowed|active] [-o KEY=VALUE]... [-v] [-l]
 *   gadgetd-worker -x PROGRAM ...: a program instead of a plugin (ffsexec.h)
 *
 * fd 3 is a SOCK_SEQPACKET socket to gadgetd (see common/wmsg.h). The worker
 * sandboxes itself before the host can reach it (sandbox.h).
 */
#include "aioguard.h"
#include "describe.h"
#include "epio.h"
#include "ffs.h"
#include "ffsbound.h"
#include "ffsexec.h"
#include "loader.h"
#include "log.h"
#include "loop.h"
#include "plugin.h"
#include "sandbox.h"
#include "spawner.h"
#include "wargv.h"
#include "wmsg.h"
#include "worker.h"

#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* The last warning or error logged, for WORKER_ERROR, and how many
 * there were (see worker_failed()). */
static char worker_last_err[WORKER_ERROR_MAX];
static unsigned worker_n_errors;

static void worker_tap(enum log_level level, const char *msg)
{
	snprintf(worker_last_err, sizeof(worker_last_err), "%s", msg);
	worker_n_errors++;
}

const char *worker_last_error(void)
{
	return worker_last_err;
}

/*
 * A step failed with r after the plugin had its say (since the step began,
 * when worker_n_errors was n): the plugin's own line is the reason, and it
 * stays the last error gadgetd hears; this one only goes to the log.
 */
static void worker_failed(unsigned n, const char *what, const char *name, int r)
{
	if (worker_n_errors != n)
		log_info("%s %s: %s (the line before says why)", what, name,
			 strerror(-r));
	else
		log_warnx("%s %s: %s", what, name, strerror(-r));
}

int worker_send(struct plugin *p, const uint8_t *buf, int len)
{
	if (len < 0)
		return len;
	if (!p->ctl)
		return -ENOTCONN;
	/* Never block the loop on gadgetd; a full socket drops the message. */
	if (send(loop_watch_fd(p->ctl), buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		log_warn("cannot send message %u to gadgetd", buf[0] | buf[1] << 8);
		return -errno;
	}
	return 0;
}

int worker_send_strings(struct plugin *p, uint16_t type,
			const char *const *strs, unsigned n)
{
	uint8_t buf[WORKER_MSG_MAX];

	return worker_send(p, buf, wmsg_build_strings(buf, sizeof(buf), type,
						      strs, n));
}

static void worker_send_u32(struct plugin *p, uint16_t type, uint32_t v)
{
	uint8_t buf[16];

	worker_send(p, buf, wmsg_build_u32(buf, sizeof(buf), type, v));
}

static void worker_rx(void *data, unsigned ep, const uint8_t *buf, size_t len)
{
	struct plugin *p = data;

	if (p->ops->rx)
		p->ops->rx(p->priv, ep, buf, len);
}

/* tx_drained fires when the queue crosses PLUGIN_TX_LOW or runs empty. */
static void worker_tx_done(void *data, unsigned ep, long res, size_t before,
			   size_t queued)
{
	struct plugin *p = data;
	bool crossed = before >= PLUGIN_TX_LOW && queued < PLUGIN_TX_LOW;

	if (p->ops->tx_result)
		p->ops->tx_result(p->priv, ep, res);

	if (p->ops->tx_drained && (crossed || (before && !queued)))
		p->ops->tx_drained(p->priv, ep);
}

static const struct epio_ops worker_epio_ops = {
	.rx = worker_rx,
	.tx_done = worker_tx_done,
};

static void worker_disable(struct plugin *p)
{
	unsigned i;

	if (!p->enabled)
		return;
	for (i = 0; i < p->desc.n_eps; i++)
		epio_disable(p->epio, i);
	p->enabled = false;
	log_info("host disabled the function");
	worker_send_u32(p, WORKER_HOST, 0);
	if (p->ops->disable)
		p->ops->disable(p->priv);
}

/* The speed is whatever wMaxPacketSize f_fs chose for the first ep. */
static int worker_ep_max_packet(struct plugin *p, unsigned ep)
{
	struct usb_endpoint_descriptor d;

	memset(&d, 0, sizeof(d));
	if (ioctl(p->ep_fds[ep], FUNCTIONFS_ENDPOINT_DESC, &d) < 0)
		return -errno;
	return le16toh(d.wMaxPacketSize) & 0x7ff;
}

static void worker_enable(struct plugin *p)
{
	unsigned i;
	int mp, mp0 = 0;

	/* A second ENABLE means f_fs re-enabled the eps: our I/O is gone. */
	worker_disable(p);
	for (i = 0; i < p->desc.n_eps; i++) {
		mp = worker_ep_max_packet(p, i);
		if (mp <= 0) {
			/* Disabled again already; the next event says how. */
			log_debug("ep%u: no descriptor (%s)", i + 1,
				  strerror(mp < 0 ? -mp : EINVAL));
			while (i--)
				epio_disable(p->epio, i);
			return;
		}
		epio_enable(p->epio, i, mp);
		if (!i)
			mp0 = mp;
	}
	p->enabled = true;
	log_info("host enabled the function (ep1 max packet %d)", mp0);
	worker_send_u32(p, WORKER_HOST, 1);
	if (p->ops->enable)
		p->ops->enable(p->priv);
}

static void worker_ep0_event(void *data, enum usb_functionfs_event_type type)
{
	struct plugin *p = data;

	switch (type) {
	case FUNCTIONFS_BIND:
		log_debug("bound to a UDC");
		return;
	case FUNCTIONFS_ENABLE:
		worker_enable(p);
		return;
	case FUNCTIONFS_DISABLE:
	case FUNCTIONFS_UNBIND:
		worker_disable(p);
		return;
	case FUNCTIONFS_SUSPEND:
	case FUNCTIONFS_RESUME:
		log_debug("bus %s", type == FUNCTIONFS_SUSPEND ? "suspended" : "resumed");
		worker_send_u32(p, WORKER_BUS, type == FUNCTIONFS_SUSPEND);
		if (p->ops->suspend)
			p->ops->suspend(p->priv, type == FUNCTIONFS_SUSPEND);
		return;
	case FUNCTIONFS_SETUP:
		return;
	}
}

static int worker_setup(void *data, const struct usb_ctrlrequest *req,
			uint8_t *in)
{
	struct plugin *p = data;
	uint8_t buf[16];

	/* Before the plugin sees it: if the request kills us, gadgetd
	 * knows a host did it (and does not count it as a crash loop). */
	if (!p->host_seen) {
		p->host_seen = true;
		worker_send(p, buf, wmsg_build_empty(buf, sizeof(buf),
						     WORKER_HOST_SEEN));
	}
	if (!p->ops->setup)
		return -EOPNOTSUPP;
	return p->ops->setup(p->priv, req, in);
}

static void worker_setup_data(void *data, const struct usb_ctrlrequest *req,
			      const uint8_t *buf, size_t len)
{
	struct plugin *p = data;

	if (p->ops->setup_data)
		p->ops->setup_data(p->priv, req, buf, len);
}

static const struct ffs_ep0_ops worker_ep0_ops = {
	.event = worker_ep0_event,
	.setup = worker_setup,
	.setup_data = worker_setup_data,
};

/* The host let a stage wait FFS_EP0_STAGE_MS: stall it, and say it
 * again until the thread heard (ffs.h). */
static void worker_on_ep0_timeout(struct loop_watch *t, void *data)
{
	struct plugin *p = data;

	ffs_ep0_abort(p->ep0);
	loop_timer_rearm(t, 100);
}

/*
 * While a control request's data stage waits for the host on ffs's
 * thread, ep0 is not polled (f_fs reports it readable all along) and a
 * timer bounds the wait; the loop, the heartbeat and the endpoints go on.
 */
static void worker_ep0_track(struct plugin *p, int r)
{
	bool busy = ffs_ep0_busy(p->ep0);

	if (r < 0 && r != -EAGAIN && r != -EBUSY) {
		log_warnx("ep0: %s; exiting", strerror(-r));
		loop_quit(p->loop, 1);
		return;
	}
	loop_watch_set_events(p->ep0_watch, busy ? 0 : EPOLLIN);
	if (busy && !p->ep0_timer) {
		p->ep0_timer = loop_add_timer(p->loop, FFS_EP0_STAGE_MS,
					      worker_on_ep0_timeout, p);
		if (!p->ep0_timer) {
			log_warn("ep0: cannot bound the data stage; exiting");
			loop_quit(p->loop, 1);
		}
	} else if (!busy && p->ep0_timer) {
		loop_watch_remove(p->ep0_timer);
		p->ep0_timer = NULL;
	}
}

static void worker_on_ep0(struct loop_watch *w, int fd, uint32_t events,
			  void *data)
{
	struct plugin *p = data;

	worker_ep0_track(p, ffs_ep0_dispatch(p->ep0));
}

static void worker_on_ep0_done(struct loop_watch *w, int fd, uint32_t events,
			       void *data)
{
	struct plugin *p = data;
	int r = ffs_ep0_finish(p->ep0);

	/* A new stage may have started: its deadline starts afresh. */
	if (ffs_ep0_busy(p->ep0) && p->ep0_timer) {
		loop_watch_remove(p->ep0_timer);
		p->ep0_timer = NULL;
	}
	worker_ep0_track(p, r);
}

static void worker_command(struct plugin *p, uint8_t *payload, size_t len)
{
	char *argv[WMSG_MAX_ARGS + 1];
	char reply[WORKER_MSG_MAX - 16] = "";
	uint8_t buf[WORKER_MSG_MAX];
	uint32_t id;
	int argc, rc;

	rc = wmsg_parse_command(payload, len, &id, argv, &argc);
	if (rc < 0) {
		log_warnx("malformed command from gadgetd: %s", strerror(-rc));
		if (rc == -EBADMSG && len < 4)
			return;
		snprintf(reply, sizeof(reply), "malformed command");
	} else if (!p->ops->command) {
		rc = -EOPNOTSUPP;
		snprintf(reply, sizeof(reply), "%s takes no commands",
			 p->ops->name);
	} else {
		p->in_command = true;
		p->cmd_now = id;
		rc = p->ops->command(p->priv, argc, argv, reply, sizeof(reply));
		p->in_command = false;
		reply[sizeof(reply) - 1] = '\0';
		if (rc == PLUGIN_COMMAND_LATER && !p->cmd_waiting) {
			p->cmd_waiting = true;
			p->cmd_id = id;
			return;
		}
		if (rc == PLUGIN_COMMAND_LATER) {
			rc = -EBUSY;
			snprintf(reply, sizeof(reply), "another command is still running");
		}
	}
	if (rc < 0 && !reply[0])
		snprintf(reply, sizeof(reply), "%s", strerror(-rc));
	worker_send(p, buf, wmsg_build_reply(buf, sizeof(buf), id, rc, reply));
}

/* WORKER_KEY_DONE: gadgetd appended the plugin's line to its keys file,
 * or says why not; the plugin hears it (plugin_keys_append()). */
static void worker_key_done(struct plugin *p, const uint8_t *payload,
			    size_t len)
{
	plugin_keys_fn done = p->keys_done;
	uint32_t id;
	int32_t rc;

	if (wmsg_parse_key_done(payload, len, &id, &rc) < 0) {
		log_warnx("malformed keys answer (%zu bytes) from gadgetd", len);
		return;
	}
	if (!done || id != p->keys_id) {
		log_warnx("keys answer for command %u, which waits for none",
			  (unsigned)id);
		return;
	}
	p->keys_done = NULL;
	done(p->keys_data, rc);
}

/* WORKER_WAKEUP_DONE: gadgetd's answer to plugin_wakeup(). */
static void worker_wake_done(struct plugin *p, const uint8_t *payload, size_t len)
{
	plugin_wakeup_fn done = p->wake_done;
	uint32_t rc;

	if (wmsg_parse_u32(payload, len, &rc) < 0 || !done) {
		log_warnx("unexpected wakeup answer (%zu bytes) from gadgetd", len);
		return;
	}
	p->wake_done = NULL;
	done(p->wake_data, (int32_t)rc);
}

/* The heartbeat: answered here, from the loop, so that only a worker
 * whose loop turns answers it. */
static void worker_pong(struct plugin *p, const uint8_t *payload, size_t len)
{
	uint8_t buf[16];
	uint32_t seq;

	if (wmsg_parse_u32(payload, len, &seq) < 0) {
		log_warnx("malformed heartbeat (%zu bytes) from gadgetd", len);
		return;
	}
	worker_send(p, buf, wmsg_build_u32(buf, sizeof(buf), WORKER_PONG, seq));
}

static void worker_close_fds(const int *fds, unsigned n)
{
	while (n--)
		close(fds[n]);
}

/*
 * One datagram from gadgetd, with the fds it carries (only WORKER_LISTEN
 * and WORKER_INPUT have any; at most WMSG_MAX_FDS are taken, MSG_CTRUNC closes the rest).
 */
static ssize_t worker_recv(int fd, uint8_t *buf, size_t size, int *fds,
			   unsigned *n_fds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(WMSG_MAX_FDS * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf,
			     .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c;
	ssize_t n;

	*n_fds = 0;
	n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return n;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int f;

			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*n_fds < WMSG_MAX_FDS)
				fds[(*n_fds)++] = f;
			else
				close(f);
		}
	}
	return n;
}

/* WORKER_LISTEN: the plugin takes the sockets, or they are closed. */
static void worker_listen(struct plugin *p, const uint8_t *payload,
			  size_t len, int *fds, unsigned n_fds)
{
	uint32_t port;
	unsigned i;

	if (wmsg_parse_u32(payload, len, &port) < 0 || port > 65535) {
		log_warnx("malformed listen message from gadgetd");
		worker_close_fds(fds, n_fds);
		return;
	}
	for (i = 0; i < n_fds; i++)
		fcntl(fds[i], F_SETFL, O_NONBLOCK);
	if (!p->ops->listen || !p->have_priv) {
		worker_close_fds(fds, n_fds);
		return;
	}
	p->ops->listen(p->priv, fds, n_fds, port);
}

static void worker_on_ctl(struct loop_watch *w, int fd, uint32_t events,
			  void *data)
{
	struct plugin *p = data;
	uint8_t buf[WORKER_MSG_MAX], *payload;
	int fds[WMSG_MAX_FDS];
	unsigned n_fds = 0;
	uint16_t type;
	size_t len;
	ssize_t n;

	n = worker_recv(fd, buf, sizeof(buf), fds, &n_fds);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		log_warnx("gadgetd closed fd %d (%s); exiting", WORKER_FD,
			  n < 0 ? strerror(errno) : "hang-up");
		loop_watch_remove(w);
		p->ctl = NULL;
		loop_quit(p->loop, 1);
		return;
	}
	if (wmsg_parse(buf, n, &type, &payload, &len) < 0) {
		log_warnx("malformed message (%zd bytes) from gadgetd", n);
		worker_close_fds(fds, n_fds);
		return;
	}
	if (type == WORKER_LISTEN) {
		worker_listen(p, payload, len, fds, n_fds);
		return;
	}
	if (plugin_input_receive(p, type, payload, len, fds, n_fds))
		return;
	worker_close_fds(fds, n_fds);
	if (type == WORKER_COMMAND)
		worker_command(p, payload, len);
	else if (type == WORKER_PING)
		worker_pong(p, payload, len);
	else if (type == WORKER_KEY_DONE)
		worker_key_done(p, payload, len);
	else if (type == WORKER_WAKEUP_DONE)
		worker_wake_done(p, payload, len);
	else if (type == WORKER_LOCK)
		plugin_lock_receive(p, payload, len);
	else
		log_warnx("unknown message type %u from gadgetd", type);
}

static void worker_usage(FILE *out, int code)
{
	fprintf(out, "usage: gadgetd-worker -P PLUGIN.so -i INSTANCE -d FFS_DIR "
		     "[-u USER] [-g GROUP] [-c CAPS] [-r allowed|active]\n"
		     "       [-o KEY=VALUE]... [-v] [-l]\n"
		     "       gadgetd-worker -x PROGRAM -i INSTANCE -d FFS_DIR [-u USER] "
		     "[-g GROUP] [-c CAPS]\n"
		     "       [-m PATH] [-a ARG]... [-e KEY=VALUE]... [-G] [-v]\n"
		     "       gadgetd-worker --describe PLUGIN.so [USER]\n"
		     "Hosts one FunctionFS plugin for gadgetd, which starts it with\n"
		     "fd %d a SOCK_SEQPACKET socket back to gadgetd (see gadgetd(8)).\n",
		WORKER_FD);
	exit(code);
}

/* The command line gadgetd built (common/wargv.h) into p; a bad one ends
 * the worker with status 2. */
static void worker_args(struct plugin *p, int argc, char **argv, bool *verbose,
			struct wargv *out)
{
	struct wargv a;
	char err[256];
	unsigned i;

	if (wargv_decode(argc, argv, &a, err, sizeof(err)) < 0) {
		fprintf(stderr, "gadgetd-worker: %s\n", err);
		worker_usage(stderr, 2);
	}
	if (a.help)
		worker_usage(stdout, 0);
	p->so = a.plugin;
	p->instance = a.instance;
	p->dir = a.dir;
	p->user = a.user;
	p->group = a.group;
	p->caps = a.caps;
	switch (a.root) {
	case WARGV_ROOT_NONE:
		break;
	case WARGV_ROOT_ALLOWED:
		p->root = PLUGIN_ROOT_ALLOWED;
		break;
	case WARGV_ROOT_ACTIVE:
		p->root = PLUGIN_ROOT_ACTIVE;
		break;
	}
	for (i = 0; i < a.n_opts; i++)
		p->opts[i] = a.opts[i];
	p->n_opts = a.n_opts;
	p->locked = a.locked;
	*verbose = a.verbose;
	*out = a;
}

/* gadgetd hands over fd 3; anything else means we were started by hand. */
static int worker_check_ctl(void)
{
	int type = 0;
	socklen_t sl = sizeof(type);

	if (getsockopt(WORKER_FD, SOL_SOCKET, SO_TYPE, &type, &sl) < 0 ||
	    type != SOCK_SEQPACKET) {
		log_warnx("fd %d is not a SOCK_SEQPACKET socket to gadgetd",
			  WORKER_FD);
		return -ENOTSOCK;
	}
	if (fcntl(WORKER_FD, F_SETFD, FD_CLOEXEC) < 0)
		return -errno;
	return 0;
}

static int worker_check_unbound(struct plugin *p)
{
	int r = ffsbound_refuse(p->dir);

	if (r == -EBUSY)
		p->refused_bound = true;
	return r;
}

/* 0, or -errno (EIO for a short write), nothing logged. */
static int worker_write_ep0(int fd, const uint8_t *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	if (n == (ssize_t)len)
		return 0;
	return n >= 0 ? -EIO : -errno;
}

static int worker_write_all(struct plugin *p, int fd, const uint8_t *buf,
			    size_t len, const char *what)
{
	int r = worker_write_ep0(fd, buf, len);

	if (r < 0) {
		errno = -r;
		log_warn("%s/ep0: the kernel refused the %s", p->dir, what);
	}
	return r;
}

/* The descriptors with the MS OS headers' bcdVersion os_bcd. */
static int worker_build_descs(struct plugin *p, uint16_t os_bcd, uint8_t *buf,
			      size_t size, size_t *len)
{
	int r = ffs_descs_build(&p->desc, os_bcd, buf, size, len);

	if (r < 0)
		log_warnx("%s: unusable descriptors: %s", p->ops->name,
			  strerror(-r));
	return r;
}

/* Descriptors, then strings; only then do the ep files exist. MS OS
 * descriptors go with bcdVersion 0x0100, and again with 0x0001 if the
 * kernel refuses them (ffs.h): what it takes decides, not its version. */
static int worker_write_descs(struct plugin *p, int fd)
{
	uint8_t buf[FFS_DESCS_MAX];
	size_t len;
	int r;

	r = worker_build_descs(p, FFS_OS_BCD, buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	r = worker_write_ep0(fd, buf, len);
	if (r == -EINVAL && p->desc.ms_compat_id) {
		log_debug("%s/ep0: MS OS descriptors of bcdVersion 0x%04x "
			  "refused; writing 0x%04x", p->dir, FFS_OS_BCD,
			  FFS_OS_BCD_OLD);
		r = worker_build_descs(p, FFS_OS_BCD_OLD, buf, sizeof(buf), &len);
		if (r < 0)
			return r;
		r = worker_write_ep0(fd, buf, len);
	}
	if (r < 0) {
		errno = -r;
		log_warn("%s/ep0: the kernel refused the descriptors", p->dir);
		return r;
	}
	r = ffs_strings_build(&p->desc, buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	return worker_write_all(p, fd, buf, len, "strings");
}

/*
 * Open a file of our FunctionFS instance. It belongs to the function's
 * user (gadgetd mounts it with that uid, files 0600). A worker restarted
 * as root (adb root) runs under gadgetd's unit without CAP_DAC_OVERRIDE,
 * so it opens them as their owner (setfsuid), as CAP_SETUID lets it.
 */
static int worker_ffs_open(const struct plugin *p, const char *path, int flags)
{
	struct stat st;
	int fd, err;
	uid_t old;

	if (stat(p->dir, &st) < 0 || st.st_uid == geteuid() || geteuid() != 0)
		return open(path, flags);
	old = setfsuid(st.st_uid);
	fd = open(path, flags);
	err = errno;
	setfsuid(old);
	errno = err;
	return fd;
}

static int worker_open_eps(struct plugin *p)
{
	char path[PATH_MAX];
	unsigned i;
	int fd, r;

	for (i = 0; i < p->desc.n_eps; i++) {
		snprintf(path, sizeof(path), "%s/ep%u", p->dir, i + 1);
		/* Non-blocking: io_submit on a disabled ep fails, not waits. */
		fd = worker_ffs_open(p, path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			log_warn("cannot open %s", path);
			return -errno;
		}
		r = epio_add(p->epio, i, fd, ffs_ep_is_in(p->desc.eps[i].type),
			     p->desc.eps[i].rx_xfer);
		if (r < 0) {
			close(fd);
			return r;
		}
		p->ep_fds[i] = fd;
	}
	return 0;
}

static int worker_open_ffs(struct plugin *p)
{
	char path[PATH_MAX];
	int fd, r;

	r = worker_check_unbound(p);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/ep0", p->dir);
	fd = worker_ffs_open(p, path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		log_warn("cannot open %s", path);
		return -errno;
	}
	r = worker_write_descs(p, fd);
	if (r < 0) {
		close(fd);
		return r;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	p->ep0_watch = loop_add_fd(p->loop, fd, EPOLLIN, worker_on_ep0, p);
	if (!p->ep0_watch) {
		close(fd);
		return -errno;
	}
	/* After the credentials were dropped: the stage thread keeps those
	 * of the thread that creates it. */
	p->ep0 = ffs_ep0_new(fd, &worker_ep0_ops, p);
	if (!p->ep0)
		return -errno;
	p->ep0_done = loop_add_fd(p->loop, ffs_ep0_done_fd(p->ep0), EPOLLIN,
				  worker_on_ep0_done, p);
	if (!p->ep0_done)
		return -errno;
	p->epio = epio_new(p->loop, &worker_epio_ops, p);
	if (!p->epio)
		return -ENOMEM;
	aioguard_watch(epio_context(p->epio));
	return worker_open_eps(p);
}

static void worker_on_signal(struct loop *l, int signo, void *data)
{
	log_info("%s: stopping", strsignal(signo));
	loop_quit(l, 0);
}

/* Resolve -u/-g, let the plugin prepare as root, then drop. */
static int worker_drop(struct plugin *p)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	struct passwd *pw;
	struct group *gr;
	int r;

	if (p->user) {
		if (!(pw = getpwnam(p->user))) {
			log_warnx("no user \"%s\"", p->user);
			return -ENOENT;
		}
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	}
	if (p->group) {
		if (!(gr = getgrnam(p->group))) {
			log_warnx("no group \"%s\"", p->group);
			return -ENOENT;
		}
		gid = gr->gr_gid;
	}
	if (p->ops->prepare) {
		unsigned n = worker_n_errors;

		r = p->ops->prepare(p, uid, gid);
		if (r < 0) {
			worker_failed(n, "could not prepare plugin", p->ops->name, r);
			return r;
		}
	}
	r = sandbox_drop(p->user, uid, gid, p->caps);
	if (r < 0)
		return r;
	log_info("running as uid %u gid %u, capabilities %#llx", (unsigned)uid,
		 (unsigned)gid, (unsigned long long)p->caps);
	return 0;
}

/* An option from the command line, else the plugin's default. */
static const char *worker_option(struct plugin *p, const char *key)
{
	return plugin_meta_option(p->ops->meta, plugin_option(p, key), key);
}

/*
 * What the spawner may run is fixed here, from the profile, never by a
 * request (spawner.h): the options shell and reboot_command.
 */
static int worker_spawner_start(struct plugin *p, pid_t *pid)
{
	struct spawner_cfg cfg = {
		.shell = worker_option(p, "shell"),
		.reboot = worker_option(p, "reboot_command"),
	};
	int fd, r;

	if (!cfg.shell)
		cfg.shell = "/bin/sh";
	if (cfg.shell[0] != '/') {
		log_warnx("shell = \"%s\": not an absolute path", cfg.shell);
		return -EINVAL;
	}
	r = spawner_start(&cfg, &fd, pid);
	if (r < 0)
		return r;
	p->spawner = spawner_new(p->loop, fd);
	return p->spawner ? 0 : -ENOMEM;
}

static int worker_start(struct plugin *p)
{
	uint8_t buf[16];
	unsigned n;
	pid_t pid;
	int r;

	r = loader_open(p->so, &p->dl, &p->ops);
	if (r < 0)
		return r;
	r = worker_drop(p);
	if (r < 0)
		return r;
	/* Before any USB fd exists and before the filter: the spawner
	 * must hold neither. */
	if (p->ops->meta && p->ops->meta->spawns) {
		r = worker_spawner_start(p, &pid);
		if (r < 0) {
			log_warnx("cannot start the spawner: %s", strerror(-r));
			return r;
		}
	}
	n = worker_n_errors;
	r = p->ops->init(p, &p->desc, &p->priv);
	if (r < 0) {
		worker_failed(n, "could not start plugin", p->ops->name, r);
		return r;
	}
	p->have_priv = true;
	/* With our credentials, before the first AIO request and before
	 * any USB fd (aioguard.h); it returns once the guard, which shares
	 * our memory, is under its own filter. */
	pid = aioguard_start();
	if (pid < 0) {
		log_warnx("cannot start the AIO guard: %s", strerror(-pid));
		return pid;
	}
	r = worker_open_ffs(p);
	if (r < 0)
		return r;
	/* The last step before the host's bytes can arrive. */
	r = sandbox_lock(p->ops->meta ? p->ops->meta->syscalls : NULL);
	if (r < 0)
		return r;
	r = worker_send(p, buf, wmsg_build_empty(buf, sizeof(buf), WORKER_READY));
	if (r < 0)
		return r;
	log_info("%s ready on %s (%u endpoints)", p->ops->name, p->dir,
		 p->desc.n_eps);
	return 0;
}

/* Exiting with r (not 0): gadgetd shows our last error with the exit. */
static void worker_send_error(struct plugin *p, int r)
{
	const char *s[] = { worker_last_err };

	if (r && worker_last_err[0])
		worker_send_strings(p, WORKER_ERROR, s, 1);
}

static void worker_stop(struct plugin *p)
{
	worker_disable(p);
	/* I/O stops before the plugin's state and the ep0 fd go away. A
	 * runtime buffer the plugin still holds (one queued on a socket, not
	 * an endpoint) is then left to the exit: plugin_buf_free() of it
	 * does nothing. */
	epio_free(p->epio);
	p->epio = NULL;
	if (p->have_priv && p->ops->finish)
		p->ops->finish(p->priv);
	/* The eventfd is ffs_ep0's, closed with it. */
	if (p->ep0_done)
		loop_watch_release(p->ep0_done);
	loop_watch_remove(p->ep0_timer);
	ffs_ep0_free(p->ep0);
	loop_watch_remove(p->ep0_watch);
	loop_watch_remove(p->ctl);
	/* The spawner sees the hang-up and ends the sessions it started. */
	spawner_free(p->spawner);
	loop_free(p->loop);
	if (p->dl)
		dlclose(p->dl);
}

int main(int argc, char **argv)
{
	static char ident[64];
	struct plugin p = { 0 };
	bool verbose = false;
	struct wargv a;
	int r;

	/* gadgetd-worker --describe PLUGIN.so [USER]: describe.h. */
	if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "--describe")) {
		log_init("gadgetd-worker", true, LOG_LEVEL_INFO);
		return describe_run(argv[2], argc == 4 ? argv[3] : NULL, stdout) < 0;
	}
	worker_args(&p, argc, argv, &verbose, &a);
	snprintf(ident, sizeof(ident), "gadgetd-worker[%s]", p.instance);
	log_init(ident, true, verbose ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO);
	log_set_tap(worker_tap);
	signal(SIGPIPE, SIG_IGN);
	if (worker_check_ctl() < 0)
		return 1;
	if (a.exec)
		return ffsexec_run(&a);
	p.loop = loop_new();
	if (!p.loop)
		return 1;
	p.ctl = loop_add_fd(p.loop, WORKER_FD, EPOLLIN, worker_on_ctl, &p);
	if (!p.ctl || loop_add_signal(p.loop, SIGTERM, worker_on_signal, NULL) < 0 ||
	    loop_add_signal(p.loop, SIGINT, worker_on_signal, NULL) < 0) {
		log_warn("cannot set up the event loop");
		return 1;
	}
	r = worker_start(&p);
	if (r == 0)
		r = loop_run(p.loop);
	else
		r = p.refused_bound ? WORKER_EXIT_BOUND : 1;
	worker_send_error(&p, r);
	worker_stop(&p);
	return r;
}
