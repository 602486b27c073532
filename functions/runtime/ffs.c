#include "ffs.h"
#include "log.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* A bounded little-endian writer; overflow is remembered, not fatal. */
struct ffs_out {
	uint8_t *buf;
	size_t size;
	size_t len;
	bool overflow;
};

static uint8_t *ffs_out_take(struct ffs_out *o, size_t n)
{
	uint8_t *p;

	if (o->overflow || o->size - o->len < n) {
		o->overflow = true;
		return NULL;
	}
	p = o->buf + o->len;
	o->len += n;
	return p;
}

static void ffs_out_u8(struct ffs_out *o, uint8_t v)
{
	uint8_t *p = ffs_out_take(o, 1);

	if (p)
		*p = v;
}

static void ffs_out_le16(struct ffs_out *o, uint16_t v)
{
	uint8_t *p = ffs_out_take(o, 2);

	if (p) {
		p[0] = v & 0xff;
		p[1] = v >> 8;
	}
}

static void ffs_out_le32(struct ffs_out *o, uint32_t v)
{
	uint8_t *p = ffs_out_take(o, 4);

	if (p) {
		v = htole32(v);
		memcpy(p, &v, 4);
	}
}

static void ffs_out_bytes(struct ffs_out *o, const void *src, size_t n)
{
	uint8_t *p = ffs_out_take(o, n);

	if (p && n)
		memcpy(p, src, n);
}

/* Patch a u32 written earlier (lengths known only at the end). */
static void ffs_out_patch32(struct ffs_out *o, size_t at, uint32_t v)
{
	if (!o->overflow && at + 4 <= o->len) {
		v = htole32(v);
		memcpy(o->buf + at, &v, 4);
	}
}

bool ffs_ep_is_in(enum plugin_ep_type t)
{
	switch (t) {
	case PLUGIN_EP_BULK_IN:
	case PLUGIN_EP_INTR_IN:
		return true;
	case PLUGIN_EP_BULK_OUT:
		return false;
	}
	return false;
}

static bool ffs_ep_is_intr(enum plugin_ep_type t)
{
	switch (t) {
	case PLUGIN_EP_INTR_IN:
		return true;
	case PLUGIN_EP_BULK_IN:
	case PLUGIN_EP_BULK_OUT:
		return false;
	}
	return false;
}

static int ffs_check_eps(const struct plugin_desc *d)
{
	unsigned i;

	if (d->n_eps > PLUGIN_MAX_EPS) {
		log_warnx("ffs: %u endpoints, at most %d", d->n_eps,
			  PLUGIN_MAX_EPS);
		return -EINVAL;
	}
	for (i = 0; i < d->n_eps; i++) {
		const struct plugin_ep *ep = &d->eps[i];

		if ((unsigned)ep->type > PLUGIN_EP_INTR_IN) {
			log_warnx("ffs: endpoint %u: unknown type %d", i,
				  (int)ep->type);
			return -EINVAL;
		}
		if (!ffs_ep_is_intr(ep->type))
			continue;
		if (!ep->intr_max_packet || ep->intr_max_packet > 1024 ||
		    !ep->intr_interval || ep->intr_interval > 16) {
			log_warnx("ffs: endpoint %u: interrupt max packet %u "
				  "(1..1024) or interval %u (1..16) out of range",
				  i, ep->intr_max_packet, ep->intr_interval);
			return -EINVAL;
		}
	}
	return 0;
}

static int ffs_check_os(const struct plugin_desc *d)
{
	unsigned i;

	if (!d->ms_compat_id) {
		if (d->n_props) {
			log_warnx("ffs: MS OS properties need ms_compat_id");
			return -EINVAL;
		}
		return 0;
	}
	if (strlen(d->ms_compat_id) > 8) {
		log_warnx("ffs: ms_compat_id \"%s\" is longer than 8 bytes",
			  d->ms_compat_id);
		return -EINVAL;
	}
	if (d->n_props > PLUGIN_MAX_PROPS) {
		log_warnx("ffs: %u MS OS properties, at most %d", d->n_props,
			  PLUGIN_MAX_PROPS);
		return -EINVAL;
	}
	for (i = 0; i < d->n_props; i++) {
		const struct plugin_ms_prop *p = &d->props[i];

		if (!p->name || !p->value || !*p->name ||
		    strlen(p->name) > FFS_PROP_MAX_LEN ||
		    strlen(p->value) > FFS_PROP_MAX_LEN) {
			log_warnx("ffs: MS OS property %u: empty or longer "
				  "than %d bytes", i, FFS_PROP_MAX_LEN);
			return -EINVAL;
		}
	}
	return 0;
}

static int ffs_check(const struct plugin_desc *d)
{
	int r;

	if (d->interface_string &&
	    strlen(d->interface_string) > FFS_STRING_MAX_LEN) {
		log_warnx("ffs: interface string longer than %d bytes",
			  FFS_STRING_MAX_LEN);
		return -EINVAL;
	}
	if (d->class_desc &&
	    (d->class_desc_len < 2 || d->class_desc_len > PLUGIN_CLASS_DESC_MAX ||
	     d->class_desc[0] != d->class_desc_len)) {
		log_warnx("ffs: class descriptor of %u bytes says %u",
			  d->class_desc_len, d->class_desc[0]);
		return -EINVAL;
	}
	r = ffs_check_eps(d);
	if (r < 0)
		return r;
	return ffs_check_os(d);
}

static void ffs_put_intf(struct ffs_out *o, const struct plugin_desc *d)
{
	ffs_out_u8(o, USB_DT_INTERFACE_SIZE);
	ffs_out_u8(o, USB_DT_INTERFACE);
	ffs_out_u8(o, 0);          /* bInterfaceNumber */
	ffs_out_u8(o, 0);          /* bAlternateSetting */
	ffs_out_u8(o, d->n_eps);
	ffs_out_u8(o, d->cls);
	ffs_out_u8(o, d->subcls);
	ffs_out_u8(o, d->proto);
	ffs_out_u8(o, d->interface_string ? 1 : 0);
}

/* Full speed counts interrupt intervals in 1 ms frames, not 2^(n-1) µframes. */
static uint8_t ffs_fs_interval(uint8_t hs)
{
	unsigned frames = (1u << (hs - 1)) / 8;

	if (!frames)
		return 1;
	return frames > 255 ? 255 : frames;
}

enum ffs_speed { FFS_FS, FFS_HS, FFS_SS };

static void ffs_put_ep(struct ffs_out *o, unsigned i, const struct plugin_ep *ep,
		       enum ffs_speed speed)
{
	static const uint16_t bulk_mp[] = { FFS_BULK_FS, FFS_BULK_HS, FFS_BULK_SS };
	bool intr = ffs_ep_is_intr(ep->type);
	uint16_t mp = intr ? ep->intr_max_packet : bulk_mp[speed];
	uint8_t interval = 0;

	if (intr && speed == FFS_FS) {
		mp = mp > 64 ? 64 : mp;
		interval = ffs_fs_interval(ep->intr_interval);
	} else if (intr) {
		interval = ep->intr_interval;
	}
	ffs_out_u8(o, USB_DT_ENDPOINT_SIZE);
	ffs_out_u8(o, USB_DT_ENDPOINT);
	ffs_out_u8(o, (i + 1) | (ffs_ep_is_in(ep->type) ? USB_DIR_IN : 0));
	ffs_out_u8(o, intr ? USB_ENDPOINT_XFER_INT : USB_ENDPOINT_XFER_BULK);
	ffs_out_le16(o, mp);
	ffs_out_u8(o, interval);
	if (speed != FFS_SS)
		return;
	ffs_out_u8(o, USB_DT_SS_EP_COMP_SIZE);
	ffs_out_u8(o, USB_DT_SS_ENDPOINT_COMP);
	ffs_out_u8(o, intr ? 0 : FFS_SS_BULK_BURST);
	ffs_out_u8(o, 0);          /* bmAttributes: no streams */
	ffs_out_le16(o, intr ? mp : 0);
}

/* Returns the number of descriptors written for one speed. */
static unsigned ffs_put_speed(struct ffs_out *o, const struct plugin_desc *d,
			      enum ffs_speed speed)
{
	unsigned i;

	ffs_put_intf(o, d);
	if (d->class_desc)
		ffs_out_bytes(o, d->class_desc, d->class_desc_len);
	for (i = 0; i < d->n_eps; i++)
		ffs_put_ep(o, i, &d->eps[i], speed);
	return 1 + !!d->class_desc + d->n_eps * (speed == FFS_SS ? 2 : 1);
}

/* OS descriptor header: interface, dwLength, bcdVersion, wIndex, count. */
static size_t ffs_put_os_header(struct ffs_out *o, uint16_t bcd,
				uint16_t index, uint16_t count)
{
	size_t at;

	ffs_out_u8(o, 0);
	at = o->len;
	ffs_out_le32(o, 0);
	ffs_out_le16(o, bcd);
	ffs_out_le16(o, index);
	ffs_out_le16(o, count); /* bCount + Reserved, or wCount */
	return at;
}

static void ffs_put_compat(struct ffs_out *o, uint16_t bcd, const char *id)
{
	uint8_t cid[8] = { 0 }, zero[8] = { 0 };
	size_t start = o->len, at;

	at = ffs_put_os_header(o, bcd, 0x0004, 1);
	memcpy(cid, id, strlen(id));
	ffs_out_u8(o, 0);          /* bFirstInterfaceNumber */
	ffs_out_u8(o, 1);          /* Reserved1: 1 per the MS specification */
	ffs_out_bytes(o, cid, 8);
	ffs_out_bytes(o, zero, 8); /* SubCompatibleID */
	ffs_out_bytes(o, zero, 6);
	ffs_out_patch32(o, at, o->len - start);
}

/*
 * The kernel takes property names and REG_SZ values as NUL-terminated
 * 8-bit strings and converts them to UTF-16LE for the host itself
 * (f_fs.c doubles wPropertyNameLength; AOSP adbd relies on this too).
 * Handing it UTF-16LE would be converted a second time.
 */
static void ffs_put_props(struct ffs_out *o, uint16_t bcd,
			  const struct plugin_desc *d)
{
	size_t start = o->len, at;
	unsigned i;

	at = ffs_put_os_header(o, bcd, 0x0005, d->n_props);
	for (i = 0; i < d->n_props; i++) {
		size_t nl = strlen(d->props[i].name) + 1;
		size_t vl = strlen(d->props[i].value) + 1;

		ffs_out_le32(o, 14 + nl + vl);
		ffs_out_le32(o, 1);    /* REG_SZ */
		ffs_out_le16(o, nl);
		ffs_out_bytes(o, d->props[i].name, nl);
		ffs_out_le32(o, vl);
		ffs_out_bytes(o, d->props[i].value, vl);
	}
	ffs_out_patch32(o, at, o->len - start);
}

static uint32_t ffs_flags(const struct plugin_desc *d)
{
	uint32_t flags = FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC |
			 FUNCTIONFS_HAS_SS_DESC;

	if (d->ms_compat_id)
		flags |= FUNCTIONFS_HAS_MS_OS_DESC;
	if (d->all_ctrl_recip)
		flags |= FUNCTIONFS_ALL_CTRL_RECIP | FUNCTIONFS_CONFIG0_SETUP;
	return flags;
}

int ffs_descs_build(const struct plugin_desc *desc, uint16_t os_bcd,
		    uint8_t *buf, size_t size, size_t *len)
{
	struct ffs_out o = { .buf = buf, .size = size };
	size_t counts;
	int r;

	r = ffs_check(desc);
	if (r < 0)
		return r;
	ffs_out_le32(&o, FUNCTIONFS_DESCRIPTORS_MAGIC_V2);
	ffs_out_le32(&o, 0);
	ffs_out_le32(&o, ffs_flags(desc));
	counts = o.len;
	ffs_out_le32(&o, 0);
	ffs_out_le32(&o, 0);
	ffs_out_le32(&o, 0);
	if (desc->ms_compat_id)
		ffs_out_le32(&o, desc->n_props ? 2 : 1);
	ffs_out_patch32(&o, counts, ffs_put_speed(&o, desc, FFS_FS));
	ffs_out_patch32(&o, counts + 4, ffs_put_speed(&o, desc, FFS_HS));
	ffs_out_patch32(&o, counts + 8, ffs_put_speed(&o, desc, FFS_SS));
	if (desc->ms_compat_id) {
		ffs_put_compat(&o, os_bcd, desc->ms_compat_id);
		if (desc->n_props)
			ffs_put_props(&o, os_bcd, desc);
	}
	if (o.overflow)
		return -ENOSPC;
	ffs_out_patch32(&o, 4, o.len);
	*len = o.len;
	return 0;
}

int ffs_strings_build(const struct plugin_desc *desc, uint8_t *buf,
		      size_t size, size_t *len)
{
	struct ffs_out o = { .buf = buf, .size = size };
	const char *s = desc->interface_string;

	if (s && strlen(s) > FFS_STRING_MAX_LEN) {
		log_warnx("ffs: interface string longer than %d bytes",
			  FFS_STRING_MAX_LEN);
		return -EINVAL;
	}
	ffs_out_le32(&o, FUNCTIONFS_STRINGS_MAGIC);
	ffs_out_le32(&o, 0);
	/* The kernel wants both counts zero or both non-zero. */
	ffs_out_le32(&o, s ? 1 : 0);
	ffs_out_le32(&o, s ? 1 : 0);
	if (s) {
		ffs_out_le16(&o, 0x0409);
		ffs_out_bytes(&o, s, strlen(s) + 1);
	}
	if (o.overflow)
		return -ENOSPC;
	ffs_out_patch32(&o, 4, o.len);
	*len = o.len;
	return 0;
}

int ffs_event_parse(const uint8_t *rec, size_t len, struct ffs_event *ev)
{
	struct usb_functionfs_event raw;

	if (len != sizeof(raw))
		return -EINVAL;
	memcpy(&raw, rec, sizeof(raw));
	if (raw.type > FUNCTIONFS_RESUME)
		return -EBADMSG;
	memset(ev, 0, sizeof(*ev));
	ev->type = raw.type;
	if (ev->type == FUNCTIONFS_SETUP) {
		ev->setup = raw.u.setup;
		ev->setup.wValue = le16toh(raw.u.setup.wValue);
		ev->setup.wIndex = le16toh(raw.u.setup.wIndex);
		ev->setup.wLength = le16toh(raw.u.setup.wLength);
	}
	return 0;
}

/* The kernel hands out at most 4 events per read; 8 leaves room. */
#define FFS_EV_BATCH 8
#define FFS_EV_SIZE ((int)sizeof(struct usb_functionfs_event))
/* The kernel's record is packed to 12 bytes on every architecture (the
 * 8-byte setup packet, the type, 3 pad bytes); descriptors are written
 * byte by byte above, so no other layout depends on the compiler. */
_Static_assert(FFS_EV_SIZE == 12, "struct usb_functionfs_event is not 12 bytes");

/*
 * The data and status stages of a control request run on a thread of
 * their own. f_fs waits for them in the kernel whatever O_NONBLOCK says
 * (ffs_ep0_read/ffs_ep0_write: __ffs_ep0_queue_wait), so a host that
 * sends a SETUP and then no data stage would otherwise hold the worker's
 * loop, and with it the heartbeat and the endpoints, until it moves on.
 * f_fs has no AIO on ep0. The wait is interruptible: ffs_ep0_abort()
 * signals the thread, whose read or write then ends with EINTR, and the
 * thread stalls the request.
 */
struct ffs_ep0 {
	int fd;
	const struct ffs_ep0_ops *ops;
	void *data;
	uint8_t pend[FFS_EV_BATCH * sizeof(struct usb_functionfs_event)];
	size_t n_pend;
	unsigned stalls;
	unsigned skipped;
	unsigned timeouts;
	/* The stage thread: one byte on job[1] starts a stage ('s') or ends
	 * the thread ('q'); done (an eventfd) counts finished stages. */
	pthread_t thread;
	int job[2];
	int done;
	/* The stage in flight. While busy, req, stage_len and xfer belong to
	 * the thread; the job pipe and the eventfd order the hand-overs. */
	bool busy;
	struct usb_ctrlrequest req;
	size_t stage_len;
	ssize_t stage_ret;
	atomic_bool abort;
	/* The lines a host's requests make us log. */
	struct log_burst host_log;
	uint8_t xfer[65536]; /* the largest wLength there is */
};

/* Only interrupts the thread's read or write (no SA_RESTART). */
static void ffs_ep0_on_signal(int signo)
{
	(void)signo;
}

/* The stage's I/O, repeated while the file only says "not now" (ep0's
 * mutex, or a test's socket). -errno on failure. */
static ssize_t ffs_ep0_stage_io(struct ffs_ep0 *e, bool in, void *buf,
				size_t len)
{
	struct pollfd pfd = { .fd = e->fd, .events = in ? POLLOUT : POLLIN };
	ssize_t n;

	for (;;) {
		if (atomic_load(&e->abort))
			return -EINTR;
		n = in ? write(e->fd, buf, len) : read(e->fd, buf, len);
		if (n >= 0)
			return n;
		/* A FFS_EP0_SIGNAL someone else sent is not an abort. */
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		poll(&pfd, 1, 100);
	}
}

/* Stall ep0: f_fs halts it for I/O in the wrong direction (-EL2HLT). */
static ssize_t ffs_ep0_stall_io(int fd, bool in, uint8_t *scratch)
{
	return in ? read(fd, scratch, 0) : write(fd, scratch, 0);
}

static void ffs_ep0_stage(struct ffs_ep0 *e)
{
	bool in = e->req.bRequestType & USB_DIR_IN;
	ssize_t n;

	/* No data stage: a 0-byte read with no buffer completes the
	 * status stage (functionfs.rst). */
	n = ffs_ep0_stage_io(e, in, in || e->stage_len ? e->xfer : NULL,
			     e->stage_len);
	/* Interrupted: the request is still pending in f_fs. Stall it, or
	 * the next read of events would start its data stage again. */
	if (n == -EINTR)
		ffs_ep0_stall_io(e->fd, in, e->xfer);
	e->stage_ret = n;
}

static void *ffs_ep0_thread(void *arg)
{
	struct ffs_ep0 *e = arg;
	uint64_t one = 1;
	char c;

	/* Running: libc's start-up calls (rseq, set_robust_list) are done. */
	if (write(e->done, &one, sizeof(one)) != sizeof(one))
		return NULL;
	for (;;) {
		ssize_t n = read(e->job[0], &c, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1 || c != 's')
			return NULL;
		ffs_ep0_stage(e);
		if (write(e->done, &one, sizeof(one)) != sizeof(one))
			return NULL;
	}
}

/*
 * Wait until the thread runs. The seccomp filter, installed later for
 * every thread, would otherwise catch the calls libc makes as a thread
 * starts (rseq, set_robust_list) and kill the worker.
 */
static int ffs_ep0_thread_wait(struct ffs_ep0 *e)
{
	struct pollfd pfd = { .fd = e->done, .events = POLLIN };
	uint64_t v;
	int r;

	do
		r = poll(&pfd, 1, 5000);
	while (r < 0 && errno == EINTR);
	if (r == 1 && read(e->done, &v, sizeof(v)) == sizeof(v))
		return 0;
	return r < 0 ? -errno : -ETIMEDOUT;
}

/* The thread takes only FFS_EP0_SIGNAL: the loop's signals stay with
 * the loop. */
static int ffs_ep0_thread_start(struct ffs_ep0 *e)
{
	struct sigaction sa = { .sa_handler = ffs_ep0_on_signal };
	sigset_t all, old;
	int r;

	sigemptyset(&sa.sa_mask);
	if (sigaction(FFS_EP0_SIGNAL, &sa, NULL) < 0)
		return -errno;
	sigfillset(&all);
	sigdelset(&all, FFS_EP0_SIGNAL);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&e->thread, NULL, ffs_ep0_thread, e);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r)
		return -r;
	r = ffs_ep0_thread_wait(e);
	if (r < 0 && write(e->job[1], "q", 1) == 1)
		pthread_join(e->thread, NULL);
	else if (r < 0)
		pthread_detach(e->thread);
	return r;
}

struct ffs_ep0 *ffs_ep0_new(int fd, const struct ffs_ep0_ops *ops, void *data)
{
	struct ffs_ep0 *e = calloc(1, sizeof(*e));
	int r;

	if (!e)
		return NULL;
	e->fd = fd;
	e->ops = ops;
	e->data = data;
	e->job[0] = e->job[1] = -1;
	e->host_log = (struct log_burst)LOG_BURST_INIT(
		"lines about the host's control requests", 5, 60);
	e->done = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->done < 0 || pipe2(e->job, O_CLOEXEC) < 0) {
		r = -errno;
		goto fail;
	}
	r = ffs_ep0_thread_start(e);
	if (r == 0)
		return e;
fail:
	log_warnx("ffs: cannot start the ep0 stage thread: %s", strerror(-r));
	if (e->done >= 0)
		close(e->done);
	if (e->job[0] >= 0) {
		close(e->job[0]);
		close(e->job[1]);
	}
	free(e);
	errno = -r;
	return NULL;
}

/* pthread_timedjoin_np for ms from now: 0 once joined, else an errno. */
static int ffs_ep0_join_ms(pthread_t thread, unsigned ms)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_nsec += (long)ms * 1000000;
	t.tv_sec += t.tv_nsec / 1000000000;
	t.tv_nsec %= 1000000000;
	return pthread_timedjoin_np(thread, NULL, &t);
}

void ffs_ep0_free(struct ffs_ep0 *e)
{
	if (!e)
		return;
	/* A stage still waiting for the host is cut short first. */
	if (e->busy)
		ffs_ep0_abort(e);
	if (write(e->job[1], "q", 1) == 1) {
		/* Idle, the thread reads the 'q' and ends: join at once (a
		 * 10 ms poll here cost every fuzz input 10 ms). A stage may
		 * need its abort signal again until its I/O returns. */
		bool joined = false;

		while (e->busy && !joined) {
			joined = ffs_ep0_join_ms(e->thread, 10) == 0;
			if (!joined)
				ffs_ep0_abort(e);
		}
		if (!joined)
			pthread_join(e->thread, NULL);
	} else {
		pthread_detach(e->thread);
	}
	close(e->job[0]);
	close(e->job[1]);
	close(e->done);
	free(e);
}

unsigned ffs_ep0_stalls(const struct ffs_ep0 *e)
{
	return e->stalls;
}

unsigned ffs_ep0_skipped(const struct ffs_ep0 *e)
{
	return e->skipped;
}

unsigned ffs_ep0_timeouts(const struct ffs_ep0 *e)
{
	return e->timeouts;
}

int ffs_ep0_done_fd(const struct ffs_ep0 *e)
{
	return e->done;
}

bool ffs_ep0_busy(const struct ffs_ep0 *e)
{
	return e->busy;
}

void ffs_ep0_abort(struct ffs_ep0 *e)
{
	if (!e->busy)
		return;
	atomic_store(&e->abort, true);
	pthread_kill(e->thread, FFS_EP0_SIGNAL);
}

/* Refusing a request: stall it at once (this never waits for the host). */
static void ffs_ep0_stall(struct ffs_ep0 *e, const struct usb_ctrlrequest *req)
{
	ssize_t n;

	e->stalls++;
	n = ffs_ep0_stall_io(e->fd, req->bRequestType & USB_DIR_IN, e->xfer);
	if (n < 0 && errno != EL2HLT && log_burst_ok(&e->host_log))
		log_warn("ffs: stalling request %02x/%02x", req->bRequestType,
			 req->bRequest);
}

static int ffs_ep0_call_setup(struct ffs_ep0 *e,
			      const struct usb_ctrlrequest *req)
{
	if (!e->ops->setup)
		return -EOPNOTSUPP;
	return e->ops->setup(e->data, req, e->xfer);
}

/* Hand the data (or status) stage to the thread. */
static void ffs_ep0_stage_start(struct ffs_ep0 *e,
				const struct usb_ctrlrequest *req, size_t len)
{
	e->req = *req;
	e->stage_len = len;
	e->stage_ret = 0;
	atomic_store(&e->abort, false);
	if (write(e->job[1], "s", 1) != 1) {
		log_warn("ffs: cannot start the stage of request %02x/%02x",
			 req->bRequestType, req->bRequest);
		ffs_ep0_stall(e, req);
		return;
	}
	e->busy = true;
}

static void ffs_ep0_setup_in(struct ffs_ep0 *e, const struct usb_ctrlrequest *req)
{
	int r;

	memset(e->xfer, 0, req->wLength);
	r = ffs_ep0_call_setup(e, req);
	if (r < 0) {
		ffs_ep0_stall(e, req);
		return;
	}
	if (r > req->wLength)
		r = req->wLength;
	ffs_ep0_stage_start(e, req, r);
}

static void ffs_ep0_setup_out(struct ffs_ep0 *e, const struct usb_ctrlrequest *req)
{
	if (ffs_ep0_call_setup(e, req) < 0) {
		ffs_ep0_stall(e, req);
		return;
	}
	/* Reading completes the status stage, also with no data stage. */
	ffs_ep0_stage_start(e, req, req->wLength);
}

/* The thread is done with the stage: the loop owns xfer again. */
static void ffs_ep0_stage_end(struct ffs_ep0 *e)
{
	const struct usb_ctrlrequest *req = &e->req;
	ssize_t n = e->stage_ret;

	e->busy = false;
	if (n == -EINTR) {
		e->timeouts++;
		e->stalls++;
		if (log_burst_ok(&e->host_log))
			log_warnx("ffs: the host left request %02x/%02x (%u bytes) "
				  "without its %s stage; stalled it",
				  req->bRequestType, req->bRequest, req->wLength,
				  req->wLength ? "data" : "status");
		return;
	}
	if (n < 0) {
		if (log_burst_ok(&e->host_log))
			log_warnx("ffs: %s stage of request %02x/%02x: %s",
				  req->wLength ? "data" : "status",
				  req->bRequestType, req->bRequest, strerror(-n));
		return;
	}
	if (!(req->bRequestType & USB_DIR_IN) && req->wLength &&
	    e->ops->setup_data)
		e->ops->setup_data(e->data, req, e->xfer, n);
}

static void ffs_ep0_handle(struct ffs_ep0 *e, const struct ffs_event *ev)
{
	switch (ev->type) {
	case FUNCTIONFS_SETUP:
		if (ev->setup.bRequestType & USB_DIR_IN)
			ffs_ep0_setup_in(e, &ev->setup);
		else
			ffs_ep0_setup_out(e, &ev->setup);
		return;
	case FUNCTIONFS_BIND:
	case FUNCTIONFS_UNBIND:
	case FUNCTIONFS_ENABLE:
	case FUNCTIONFS_DISABLE:
	case FUNCTIONFS_SUSPEND:
	case FUNCTIONFS_RESUME:
		if (e->ops->event)
			e->ops->event(e->data, ev->type);
		return;
	}
}

/* Dispatch every complete record in e->pend; keep a partial one. */
static int ffs_ep0_drain(struct ffs_ep0 *e)
{
	size_t off = 0;
	int n = 0;

	while (!e->busy && e->n_pend - off >= (size_t)FFS_EV_SIZE) {
		struct ffs_event ev;

		if (ffs_event_parse(e->pend + off, FFS_EV_SIZE, &ev) < 0) {
			log_warnx("ffs: skipping unknown ep0 event type %u",
				  e->pend[off + 8]);
			e->skipped++;
		} else {
			ffs_ep0_handle(e, &ev);
			n++;
		}
		off += FFS_EV_SIZE;
	}
	memmove(e->pend, e->pend + off, e->n_pend - off);
	e->n_pend -= off;
	return n;
}

int ffs_ep0_dispatch(struct ffs_ep0 *e)
{
	ssize_t n;

	if (e->busy)
		return -EBUSY;

	n = read(e->fd, e->pend + e->n_pend, sizeof(e->pend) - e->n_pend);
	if (n < 0) {
		/* EIDRM: a SETUP was cancelled by a newer event; read again. */
		if (errno == EAGAIN || errno == EINTR || errno == EIDRM)
			return -EAGAIN;
		return -errno;
	}
	if (n == 0)
		return e->n_pend ? -EPROTO : -ESHUTDOWN;
	e->n_pend += n;
	return ffs_ep0_drain(e);
}

int ffs_ep0_finish(struct ffs_ep0 *e)
{
	uint64_t v;

	if (read(e->done, &v, sizeof(v)) != sizeof(v) || !e->busy)
		return -EAGAIN;
	ffs_ep0_stage_end(e);
	return ffs_ep0_drain(e);
}
