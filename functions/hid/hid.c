/*
 * hid: a USB HID keyboard, mouse, tablet or consumer-key device on
 * FunctionFS, driven by commands (hid_cmd.h). One interface, class 3,
 * with the HID class descriptor and one interrupt IN endpoint; the host's
 * output reports (keyboard LEDs) come as SET_REPORT on ep0, as Linux's
 * usbhid and BIOSes send them to a device without an interrupt OUT one.
 *
 * Reports go out one at a time: the next is written only when the host
 * has taken the last one (tx_result), so typing runs at the host's
 * polling rate and nothing is dropped or sent twice. A command's reply
 * counts what arrived. It ends early, saying so, when the host
 * disconnects (disable), suspends the bus or stops polling for
 * HID_POLL_MS (a host with the device closed does not poll it), or the
 * command has run HID_JOB_MS (gadgetd waits 5 s for a reply): a unit
 * half sent then (a key pressed, not yet released) is
 * completed in the queue, so that a host that polls again gets whole
 * characters.
 *
 * Remote wakeup: a command that finds the bus suspended asks gadgetd
 * to wake the host (plugin_wakeup(): the UDC's srp file, which the
 * sandbox keeps from the worker) and sends its first report once the bus
 * resumes, so that nothing is lost or sent twice; one that the host
 * suspends mid-way asks too, its report in flight arriving once the host
 * polls again. Where the host does not resume within HID_WAKE_MS (it did
 * not enable remote wakeup) or gadgetd refuses (the profile's
 * remote_wakeup), the command ends and says why.
 *
 * Local input (forward = "input", inputfwd.h in gadgetd): gadgetd hands
 * over the board's keyboards or mice, opened and grabbed; their events
 * become reports (hid_input.h) in a queue of their own that shares the
 * one report in flight with the commands: a command waits for the
 * forwarded report in flight, forwarded reports wait for a command's.
 * A full queue (the host stopped polling) is emptied, and a keyboard
 * then queues what is held now, so that no key stays down. A suspended
 * bus is woken as for a command, once for a report: a host that resumes
 * and suspends again without taking it does not read the interface, and
 * is not woken again until it takes one. If it cannot be woken, the
 * queue is dropped (the report in flight stays with the UDC).
 * The hotkey (forward_hotkey) and the `forward` command ask gadgetd to
 * release every forwarded device to the board, or take them again.
 */
#include "hid_cmd.h"
#include "hid_desc.h"
#include "hid_input.h"
#include "hid_keymap.h"
#include "log.h"
#include "loop.h"
#include "plugin.h"

#include <errno.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HID_EP_IN 0
/* A host polls at bInterval (1 ms here); one that takes no report for
 * this long has stopped (suspended, or gone without a disconnect). */
#define HID_POLL_MS 1000
/* A command's time: under gadgetd's 5 s command timeout. */
#define HID_JOB_MS 4000
/* How long a host has to resume the bus after a remote wakeup: USB 2.0
 * gives it 20 ms of resume signalling and 10 ms of recovery. */
#define HID_WAKE_MS 1000
/* bInterval at high speed: 2^(4-1) microframes, 1 ms. */
#define HID_INTERVAL_HS 4
/* Forwarded devices a function holds, and reports queued for them. */
#define HID_FWD_DEVICES 8
#define HID_FWD_QUEUE 256
/* Events read from a device at one wake-up. */
#define HID_FWD_EVENTS 64

/* Class requests (HID 1.11, 7.2). */
#define HID_GET_REPORT 0x01
#define HID_GET_IDLE 0x02
#define HID_GET_PROTOCOL 0x03
#define HID_SET_REPORT 0x09
#define HID_SET_IDLE 0x0a
#define HID_SET_PROTOCOL 0x0b
#define HID_DT_REPORT 0x22

struct hid {
	struct plugin *p;
	struct hid_cmd_ctx ctx;
	uint8_t report_desc[512];
	size_t report_desc_len;
	uint8_t class_desc[HID_DESC_CLASS_LEN];
	size_t report_len;       /* in report protocol */
	uint8_t idle;
	bool enabled;
	bool suspended;
	bool waking;             /* a remote wakeup asked for, no resume yet */
	uint8_t last[HID_DESC_REPORT_MAX]; /* the last report the host took */
	size_t last_len;

	/* The command being sent. */
	struct hid_cmd_job job;
	bool active;
	size_t next;             /* job.r[next] is in flight or next to go */
	bool inflight;
	unsigned arrived;        /* units whose first report arrived */
	unsigned stale;          /* reports of an ended job still queued */
	uint64_t deadline;
	struct loop_watch *timer;
	char layout[64];

	/* Forwarded local input (forward = "input"). */
	bool fwd;
	bool fwd_grabbed;
	bool fwd_inflight;       /* the report in flight is the queue's head */
	bool fwd_waking;         /* a wakeup asked for the queue */
	bool fwd_woke;           /* one was asked for the queue's head */
	struct hid_input in;
	struct hid_fwd_dev {
		struct hid *h;
		uint32_t id;
		struct loop_watch *w;
		char label[128];
	} dev[HID_FWD_DEVICES];
	struct hid_cmd_report q[HID_FWD_QUEUE];
	size_t q_head, q_len;
};

static void hid_fwd_pump(struct hid *h);
static void hid_fwd_wake(struct hid *h);

static void hid_job_end(struct hid *h, int rc, const char *why)
{
	char reply[512];

	if (!rc)
		snprintf(reply, sizeof(reply), "%s %u %s", h->job.verb, h->job.units,
			 h->job.noun);
	else
		snprintf(reply, sizeof(reply), "%s %u of %u %s: %s", h->job.verb,
			 h->arrived, h->job.units, h->job.noun, why);
	if (h->timer)
		loop_watch_remove(h->timer);
	h->timer = NULL;
	h->active = false;
	h->inflight = false;
	h->waking = false;
	hid_cmd_job_finish(&h->job);
	plugin_command_reply(h->p, rc, reply);
	hid_fwd_pump(h);
}

/*
 * The host stopped taking reports with job.r[next] in flight: queue the
 * rest of its unit behind it (a pressed key gets its release), count
 * those as stale, and end.
 */
static void hid_job_stop(struct hid *h, const char *why)
{
	char text[256];
	size_t i = h->next + 1;
	bool partial = h->job.r[h->next].unit;

	h->stale++;
	for (; i < h->job.n && !h->job.r[i].unit; i++)
		if (plugin_write(h->p, HID_EP_IN, h->job.r[i].data, h->job.r[i].len) == 0)
			h->stale++;
	if (partial)
		snprintf(text, sizeof(text), "%s; the next one is queued and arrives "
			 "if the host polls again; the rest was not sent", why);
	else
		snprintf(text, sizeof(text), "%s; the rest was not sent", why);
	hid_job_end(h, -ETIMEDOUT, text);
}

#define HID_NOT_WOKEN "the host suspended the bus and did not resume it " \
	"after a remote wakeup (it has not enabled remote wakeup for the device)"

static void hid_job_timeout(struct loop_watch *w, void *data)
{
	struct hid *h = data;

	h->timer = NULL;
	loop_watch_remove(w);
	if (h->active && h->inflight)
		hid_job_stop(h, h->waking ? HID_NOT_WOKEN :
			     h->suspended ? "the host suspended the bus" :
			     "the host took no report for 1 s (is the device open "
			     "on the host?)");
	else if (h->active && h->waking)
		hid_job_end(h, -EHOSTDOWN, HID_NOT_WOKEN "; nothing was sent");
	else if (h->active)
		hid_job_end(h, -ETIMEDOUT, "the host took no forwarded report for 1 s "
			    "(is the device open on the host?); nothing was sent");
}

static void hid_timer(struct hid *h, unsigned ms)
{
	if (h->timer)
		loop_timer_rearm(h->timer, ms);
	else
		h->timer = loop_add_timer(plugin_loop(h->p), ms, hid_job_timeout, h);
}

/* Write job.r[next]: 0, or -errno of plugin_write (the caller ends). */
static int hid_job_send(struct hid *h)
{
	const struct hid_cmd_report *r = &h->job.r[h->next];
	int rc = plugin_write(h->p, HID_EP_IN, r->data, r->len);

	if (rc < 0)
		return rc;
	h->inflight = true;
	hid_timer(h, HID_POLL_MS);
	return 0;
}

/* gadgetd's answer to the wakeup: on 0 the resume (hid_suspend) or the
 * timer goes on. */
static void hid_wake_done(void *data, int rc)
{
	struct hid *h = data;
	char why[256];

	if (!h->active || !h->waking || rc == 0)
		return;
	h->waking = false;
	snprintf(why, sizeof(why), "the host suspended the bus and cannot be woken: %s",
		 rc == -EOPNOTSUPP ? "the configuration does not offer remote wakeup "
		 "(the profile's remote_wakeup)" : rc == -EAGAIN ?
		 "the bus is not suspended" : strerror(-rc));
	if (h->inflight)
		hid_job_stop(h, why);
	else
		hid_job_end(h, -EHOSTDOWN, why);
}

/* The bus is suspended with a report waiting: wake the host, and give it
 * HID_WAKE_MS to resume. */
static int hid_wake(struct hid *h)
{
	int r = plugin_wakeup(h->p, hid_wake_done, h);

	if (r < 0 && r != -EBUSY)
		return r;
	h->waking = true;
	hid_timer(h, HID_WAKE_MS);
	return 0;
}

static void hid_tx_result(void *priv, unsigned ep, long res)
{
	struct hid *h = priv;
	const struct hid_cmd_report *r;

	if (h->stale) {
		h->stale--;
		return;
	}
	if (h->fwd_inflight) {
		h->fwd_inflight = false;
		h->fwd_woke = false;
		if (h->q_len) {
			h->q_head = (h->q_head + 1) % HID_FWD_QUEUE;
			h->q_len--;
		}
		/* A command that waited for it goes first. */
		if (h->active && !h->inflight && !h->waking && hid_job_send(h) < 0)
			hid_job_end(h, -ENOTCONN, "the host disconnected");
		else if (!h->active)
			hid_fwd_pump(h);
		return;
	}
	if (!h->active || !h->inflight)
		return;
	h->inflight = false;
	r = &h->job.r[h->next];
	if (res != r->len) {
		hid_job_end(h, -ENOTCONN, "the host disconnected");
		return;
	}
	memcpy(h->last, r->data, r->len);
	h->last_len = r->len;
	if (r->unit)
		h->arrived++;
	if (++h->next == h->job.n) {
		hid_job_end(h, 0, NULL);
		return;
	}
	/* Stop only between units, so that no key stays pressed. */
	if (h->job.r[h->next].unit && loop_now_ms() >= h->deadline) {
		hid_job_end(h, -ETIMEDOUT, "time is up (4 s a command): send the rest again");
		return;
	}
	if (hid_job_send(h) < 0)
		hid_job_end(h, -ENOTCONN, "the host disconnected");
}

static void hid_enable(void *priv)
{
	struct hid *h = priv;

	h->enabled = true;
	h->suspended = false;
	h->waking = false;
	h->stale = 0;
	h->fwd_inflight = false;
	h->fwd_waking = false;
	h->fwd_woke = false;
	/* A new host starts in report protocol (HID 1.11, 7.2.6). */
	h->ctx.boot = false;
}

static void hid_disable(void *priv)
{
	struct hid *h = priv;

	h->enabled = false;
	h->stale = 0;
	/* Nothing queued for a host that went; a new one starts with
	 * nothing held. */
	h->q_len = 0;
	h->fwd_inflight = false;
	h->fwd_waking = false;
	h->fwd_woke = false;
	hid_input_release_all(&h->in);
	if (h->active)
		hid_job_end(h, -ENOTCONN, "the host disconnected");
	/* A new connection starts with nothing pressed. */
	memset(&h->ctx.keys, 0, sizeof(h->ctx.keys));
	h->ctx.buttons = 0;
}

/* A suspend may be the start of a disconnect: the poll timeout or the
 * disable that follows ends the command, and says which it was. */
static void hid_suspend(void *priv, bool suspended)
{
	struct hid *h = priv;
	bool waited = h->waking;

	h->suspended = suspended;
	if (!suspended)
		h->fwd_waking = false;
	/* A forwarded report in flight waits in the UDC's queue: wake the
	 * host for it, as for a command's, once. */
	else if (h->fwd_inflight && !h->fwd_waking)
		hid_fwd_wake(h);
	if (!h->active) {
		if (!suspended)
			hid_fwd_pump(h);
		return;
	}
	if (suspended) {
		/* The report in flight waits in the UDC's queue. */
		if (h->inflight && hid_wake(h) < 0)
			log_debug("hid: cannot ask for a remote wakeup");
		return;
	}
	h->waking = false;
	if (h->inflight)
		hid_timer(h, HID_POLL_MS);
	/* A forwarded report still in flight goes first: its tx_result
	 * sends the command's. */
	else if (waited && !h->fwd_inflight && hid_job_send(h) < 0)
		hid_job_end(h, -ENOTCONN, "the host disconnected");
}


/* The forwarded devices and their state, for `gadgetctl status`. */
static void hid_fwd_status(struct hid *h)
{
	char text[HID_FWD_DEVICES * 130 + 64];
	size_t n = 0;
	unsigned i, count = 0;

	text[0] = '\0';
	for (i = 0; i < HID_FWD_DEVICES; i++)
		if (h->dev[i].w) {
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s",
					      count ? ", " : "", h->dev[i].label);
			count++;
		}
	plugin_set_status(h->p, "forward", !count ? "no device" :
			  h->fwd_grabbed ? "grabbed" : "released");
	plugin_set_status(h->p, "forward_devices", count ? text : "none");
}

/* Empty the queue but for the report in flight, which the UDC holds. */
static void hid_fwd_drop(struct hid *h)
{
	h->q_len = h->fwd_inflight ? 1 : 0;
	if (!h->fwd_inflight)
		h->fwd_woke = false;
}

static void hid_fwd_wake_done(void *data, int rc)
{
	struct hid *h = data;

	if (!h->fwd_waking || rc == 0)
		return;
	h->fwd_waking = false;
	log_warnx("hid: forwarded input dropped: the host suspended the bus and cannot "
		  "be woken (%s)", strerror(-rc));
	hid_fwd_drop(h);
}

/*
 * Wake the suspended host for the queue's head, once: a host that
 * resumed and suspended again without taking it does not read this
 * interface (on Linux, usbhid polls only while the device is open, and
 * another interface of the gadget may have enabled remote wakeup), and
 * waking it again would only wake it at each autosuspend, or wake a
 * sleeping PC for a stale report. The report stays queued for a host
 * that polls again.
 */
static void hid_fwd_wake(struct hid *h)
{
	if (h->fwd_woke) {
		log_debug("hid: the host resumed without taking the forwarded report "
			  "in flight; not woken again for it");
		return;
	}
	if (plugin_wakeup(h->p, hid_fwd_wake_done, h) == 0) {
		h->fwd_waking = true;
		h->fwd_woke = true;
	}
}

/* Send the queue's head if nothing else is in flight. */
static void hid_fwd_pump(struct hid *h)
{
	struct hid_cmd_report *r;

	if (!h->q_len || h->active || h->fwd_inflight)
		return;
	if (!h->enabled) {
		hid_fwd_drop(h);
		return;
	}
	if (h->suspended) {
		if (!h->fwd_waking)
			hid_fwd_wake(h);
		return;
	}
	r = &h->q[h->q_head];
	if (plugin_write(h->p, HID_EP_IN, r->data, r->len) == 0)
		h->fwd_inflight = true;
	else
		hid_fwd_drop(h);
}

static void hid_fwd_push(struct hid *h, const struct hid_cmd_report *r, size_t n)
{
	size_t i;

	if (!h->enabled)
		return;
	if (h->q_len + n > HID_FWD_QUEUE) {
		/* The host takes nothing: keep only what is held now. */
		log_warnx("hid: forwarded input queue full (the host takes no report); "
			  "the queue was emptied");
		hid_fwd_drop(h);
		if (!h->in.keys)
			return;
		n = 1;
	}
	for (i = 0; i < n; i++) {
		h->q[(h->q_head + h->q_len) % HID_FWD_QUEUE] = r[i];
		h->q_len++;
	}
	hid_fwd_pump(h);
}

/* A report with nothing held: at a release, a device gone. */
static void hid_fwd_push_idle(struct hid *h)
{
	struct hid_desc_keys none = { 0 };
	struct hid_cmd_report r = { .unit = true };

	if (h->in.keys)
		r.len = (uint8_t)hid_desc_keys_report(&none, h->ctx.nkro, h->ctx.boot, r.data);
	else
		r.len = (uint8_t)hid_desc_mouse_report(0, 0, 0, 0, h->ctx.boot, r.data);
	hid_fwd_push(h, &r, 1);
}

static void hid_fwd_event(struct hid *h, const struct input_event *ev)
{
	struct hid_cmd_report r[HID_INPUT_REPORTS_MAX];
	size_t n;

	switch (hid_input_event(&h->in, ev->type, ev->code, ev->value)) {
	case HID_INPUT_NONE:
		return;
	case HID_INPUT_HOTKEY:
		/* gadgetd's answer (input_state) releases the keys held on
		 * the host, if it releases. */
		if (plugin_input_grab(h->p, PLUGIN_INPUT_TOGGLE) < 0)
			log_warnx("hid: cannot ask gadgetd to release or take the devices");
		return;
	case HID_INPUT_RESET:
		if (h->fwd_grabbed)
			hid_fwd_push_idle(h);
		return;
	case HID_INPUT_REPORT:
		n = hid_input_reports(&h->in, h->ctx.nkro, h->ctx.boot, r);
		if (h->fwd_grabbed)
			hid_fwd_push(h, r, n);
		return;
	}
}

static void hid_fwd_close(struct hid *h, struct hid_fwd_dev *d, const char *why)
{
	log_info("hid: %s: no longer forwarded (%s)", d->label, why);
	loop_watch_remove(d->w);
	d->w = NULL;
	/* Its keys may have been held: the host gets them released. */
	hid_input_release_all(&h->in);
	if (h->fwd_grabbed)
		hid_fwd_push_idle(h);
	hid_fwd_status(h);
}

static void hid_fwd_io(struct loop_watch *w, int fd, uint32_t events, void *data)
{
	struct hid_fwd_dev *d = data;
	struct hid *h = d->h;
	struct input_event ev[HID_FWD_EVENTS];
	ssize_t n;
	size_t i;

	(void)events;
	n = read(fd, ev, sizeof(ev));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0 || n % (ssize_t)sizeof(ev[0])) {
		hid_fwd_close(h, d, n < 0 ? strerror(errno) : "short read");
		return;
	}
	for (i = 0; i < (size_t)n / sizeof(ev[0]); i++)
		hid_fwd_event(h, &ev[i]);
}

static void hid_input(void *priv, uint32_t id, int fd, bool grabbed, const char *label)
{
	struct hid *h = priv;
	struct hid_fwd_dev *d = NULL;
	unsigned i;

	for (i = 0; i < HID_FWD_DEVICES && !d; i++)
		if (!h->dev[i].w)
			d = &h->dev[i];
	if (!h->fwd || !d) {
		log_warnx("hid: input device %s refused (%s)", label,
			  h->fwd ? "too many" : "forward is not \"input\"");
		close(fd);
		return;
	}
	d->h = h;
	d->id = id;
	snprintf(d->label, sizeof(d->label), "%s", label);
	d->w = loop_add_fd(plugin_loop(h->p), fd, EPOLLIN, hid_fwd_io, d);
	if (!d->w) {
		close(fd);
		return;
	}
	h->fwd_grabbed = grabbed;
	log_info("hid: forwarding %s%s", label, grabbed ? "" : " (released to the board)");
	hid_fwd_status(h);
}

static void hid_input_gone(void *priv, uint32_t id)
{
	struct hid *h = priv;
	unsigned i;

	for (i = 0; i < HID_FWD_DEVICES; i++)
		if (h->dev[i].w && h->dev[i].id == id)
			hid_fwd_close(h, &h->dev[i], "gadgetd let it go");
}

static void hid_input_state(void *priv, bool grabbed)
{
	struct hid *h = priv;

	if (h->fwd_grabbed && !grabbed) {
		/* What the host has held is released as the board takes over. */
		hid_input_release_all(&h->in);
		hid_fwd_push_idle(h);
	}
	h->fwd_grabbed = grabbed;
	hid_fwd_status(h);
}

/* forward release|take|toggle: through gadgetd, like the hotkey. */
static int hid_forward_command(struct hid *h, int argc, char **argv, char *reply,
			       size_t size)
{
	static const char *const hows[] = { "release", "take", "toggle" };
	unsigned how;

	for (how = 0; argc == 2 && how < 3; how++)
		if (!strcmp(argv[1], hows[how]))
			break;
	if (argc != 2 || how == 3) {
		snprintf(reply, size, "usage: forward release|take|toggle");
		return -EINVAL;
	}
	if (!h->fwd) {
		snprintf(reply, size, "this function forwards no input (its forward option)");
		return -ENOTSUP;
	}
	if (plugin_input_grab(h->p, how) < 0) {
		snprintf(reply, size, "cannot ask gadgetd");
		return -EIO;
	}
	snprintf(reply, size, "asked gadgetd to %s the forwarded devices", hows[how]);
	return 0;
}

static int hid_command(void *priv, int argc, char **argv, char *reply, size_t size)
{
	struct hid *h = priv;
	struct hid_cmd_job job;
	int r;

	if (argc && !strcmp(argv[0], "forward"))
		return hid_forward_command(h, argc, argv, reply, size);
	if (h->active && !(argc == 1 && !strcmp(argv[0], "leds"))) {
		snprintf(reply, size, "busy: still sending the last command (%u of %u %s)",
			 h->arrived, h->job.units, h->job.noun);
		return -EBUSY;
	}
	r = hid_cmd_parse(&h->ctx, argc, argv, &job, reply, size);
	if (r <= 0)
		return r;
	if (!h->enabled) {
		snprintf(reply, size, "%s 0 of %u %s: no host has configured the device",
			 job.verb, job.units, job.noun);
		hid_cmd_job_finish(&job);
		return -ENOTCONN;
	}
	h->job = job;
	h->next = 0;
	h->arrived = 0;
	h->deadline = loop_now_ms() + HID_JOB_MS;
	if (h->suspended) {
		r = hid_wake(h);
		if (r < 0) {
			snprintf(reply, size, "%s 0 of %u %s: the host suspended the bus and "
				 "gadgetd could not be asked to wake it: %s", job.verb,
				 job.units, job.noun, strerror(-r));
			hid_cmd_job_finish(&h->job);
			return r;
		}
		h->active = true;
		return PLUGIN_COMMAND_LATER;
	}
	/* A forwarded report is in flight: its tx_result sends ours. */
	if (h->fwd_inflight) {
		h->active = true;
		hid_timer(h, HID_POLL_MS);
		return PLUGIN_COMMAND_LATER;
	}
	if (hid_job_send(h) < 0) {
		snprintf(reply, size, "%s 0 of %u %s: the host disconnected",
			 job.verb, job.units, job.noun);
		hid_cmd_job_finish(&h->job);
		return -ENOTCONN;
	}
	h->active = true;
	return PLUGIN_COMMAND_LATER;
}

/* The current input report, for GET_REPORT: the last one sent, or an
 * idle one of the right length before any. */
static int hid_get_report(struct hid *h, uint16_t wlength, uint8_t *in)
{
	uint8_t idle[HID_DESC_REPORT_MAX] = { 0 };
	size_t n = h->ctx.boot && h->ctx.kind != HID_DESC_TABLET ?
		   (h->ctx.kind == HID_DESC_KEYBOARD ? 8 : 3) : h->report_len;
	const uint8_t *src = h->last_len == n ? h->last : idle;

	if (h->ctx.kind == HID_DESC_KEYBOARD && !h->ctx.custom_len && h->last_len != n)
		hid_desc_keys_report(&h->ctx.keys, h->ctx.nkro, h->ctx.boot, idle);
	n = n < wlength ? n : wlength;
	memcpy(in, src, n);
	return (int)n;
}

static int hid_setup_class(struct hid *h, const struct usb_ctrlrequest *req, uint8_t *in)
{
	bool dir_in = req->bRequestType & USB_DIR_IN;

	switch (req->bRequest) {
	case HID_GET_REPORT:
		return dir_in ? hid_get_report(h, req->wLength, in) : -EOPNOTSUPP;
	case HID_GET_IDLE:
		if (!dir_in || req->wLength < 1)
			return -EOPNOTSUPP;
		in[0] = h->idle;
		return 1;
	case HID_GET_PROTOCOL:
		if (!dir_in || req->wLength < 1)
			return -EOPNOTSUPP;
		in[0] = h->ctx.boot ? 0 : 1;
		return 1;
	case HID_SET_REPORT:
		/* Output reports: the keyboard's LEDs (one byte). */
		return !dir_in && req->wLength >= 1 && req->wLength <= HID_DESC_REPORT_MAX ?
		       0 : -EOPNOTSUPP;
	case HID_SET_IDLE:
		/* Reports go out on change only; the idle rate is kept for
		 * GET_IDLE (Linux and BIOSes set 0, "never repeat"). */
		if (dir_in)
			return -EOPNOTSUPP;
		h->idle = req->wValue >> 8;
		return 0;
	case HID_SET_PROTOCOL:
		if (dir_in || req->wValue > 1 || !hid_desc_subclass(h->ctx.kind))
			return -EOPNOTSUPP;
		h->ctx.boot = req->wValue == 0;
		return 0;
	}
	return -EOPNOTSUPP;
}

static int hid_setup(void *priv, const struct usb_ctrlrequest *req, uint8_t *in)
{
	struct hid *h = priv;
	unsigned type = req->bRequestType & USB_TYPE_MASK;
	size_t n;

	if (type == USB_TYPE_CLASS)
		return hid_setup_class(h, req, in);
	/* GET_DESCRIPTOR to the interface: f_fs passes it on, the
	 * composite driver answers only the device's own. */
	if (type != USB_TYPE_STANDARD || req->bRequest != USB_REQ_GET_DESCRIPTOR ||
	    !(req->bRequestType & USB_DIR_IN))
		return -EOPNOTSUPP;
	switch (req->wValue >> 8) {
	case HID_DT_REPORT:
		n = h->report_desc_len;
		memcpy(in, h->report_desc, n < req->wLength ? n : req->wLength);
		return (int)(n < req->wLength ? n : req->wLength);
	case 0x21:
		n = sizeof(h->class_desc);
		memcpy(in, h->class_desc, n < req->wLength ? n : req->wLength);
		return (int)(n < req->wLength ? n : req->wLength);
	}
	return -EOPNOTSUPP;
}

static void hid_setup_data(void *priv, const struct usb_ctrlrequest *req,
			   const uint8_t *data, size_t len)
{
	struct hid *h = priv;

	/* Output report 0 (no report IDs here): the LED bits. */
	if (req->bRequest == HID_SET_REPORT && len >= 1 && (req->wValue >> 8) == 2)
		h->ctx.leds = data[0];
	else if (req->bRequest == HID_SET_REPORT && len >= 1 && h->ctx.kind == HID_DESC_KEYBOARD)
		h->ctx.leds = data[0];
}

/* The profile's own descriptor, or the kind's. */
static int hid_init_desc(struct hid *h, struct plugin *p)
{
	const char *own = plugin_option(p, "report_desc");
	const uint8_t *d;
	long long len;
	int n, r;

	if (own) {
		n = optdesc_hex(own, h->report_desc, sizeof(h->report_desc));
		if (n <= 0) {
			log_warnx("hid: option report_desc: \"%s\" is not an even "
				  "number of hex digits (at most %zu bytes)",
				  own, sizeof(h->report_desc));
			return -EINVAL;
		}
		r = plugin_option_int(p, "report_length", &len);
		if (r == -ENOENT)
			log_warnx("hid: report_desc needs report_length (the input report's bytes)");
		if (r < 0)
			return -EINVAL;
		h->report_desc_len = (size_t)n;
		/* In the declared range, 1..64. */
		h->report_len = h->ctx.custom_len = (size_t)len;
		return 0;
	}
	d = hid_desc_report(h->ctx.kind, h->ctx.nkro, &h->report_desc_len);
	memcpy(h->report_desc, d, h->report_desc_len);
	h->report_len = hid_desc_report_len(h->ctx.kind, h->ctx.nkro);
	return 0;
}

/* forward = "input": a keyboard or mouse of the built-in kinds, and a
 * keyboard's hotkey. */
static int hid_init_forward(struct hid *h, struct plugin *p)
{
	const char *fwd = plugin_option_or_default(p, "forward");
	char why[256];

	h->fwd = fwd && !strcmp(fwd, "input");
	if (!h->fwd)
		return 0;
	if (h->ctx.custom_len || (h->ctx.kind != HID_DESC_KEYBOARD &&
				  h->ctx.kind != HID_DESC_MOUSE)) {
		log_warnx("hid: forward = \"input\" needs kind keyboard or mouse, "
			  "without report_desc");
		return -EINVAL;
	}
	hid_input_init(&h->in, h->ctx.kind == HID_DESC_KEYBOARD);
	h->fwd_grabbed = true;
	if (h->in.keys && hid_input_hotkey(&h->in, h->ctx.keymap,
					   plugin_option_or_default(p, "forward_hotkey"),
					   why, sizeof(why)) < 0) {
		log_warnx("hid: option forward_hotkey: %s", why);
		return -EINVAL;
	}
	hid_fwd_status(h);
	return 0;
}

static int hid_init(struct plugin *p, struct plugin_desc *desc, void **priv)
{
	struct hid *h = calloc(1, sizeof(*h));
	const char *kind = plugin_option_or_default(p, "kind");
	const char *layout = plugin_option_or_default(p, "layout");
	char why[256], layouts[512];
	bool nkro;

	if (!h)
		return -ENOMEM;
	h->p = p;
	if (hid_desc_kind(kind, &h->ctx.kind) < 0 ||
	    plugin_option_bool(p, "nkro", &nkro) < 0) {
		free(h);
		return -EINVAL;
	}
	/* Before the descriptor, which it chooses (it was set after, so an
	 * nkro keyboard described itself as a boot keyboard). */
	h->ctx.nkro = nkro && h->ctx.kind == HID_DESC_KEYBOARD;
	if (hid_init_desc(h, p) < 0) {
		free(h);
		return -EINVAL;
	}
	if (h->ctx.kind == HID_DESC_KEYBOARD) {
		snprintf(layouts, sizeof(layouts), "%s,%s", layout,
			 plugin_option_or_default(p, "layouts"));
		h->ctx.keymap = hid_keymap_new(layouts, why, sizeof(why));
		if (!h->ctx.keymap) {
			log_warnx("hid: %s", why);
			free(h);
			return -EINVAL;
		}
	}
	snprintf(h->layout, sizeof(h->layout), "%s", layout);
	h->ctx.layout = h->layout;
	if (hid_init_forward(h, p) < 0) {
		hid_keymap_free((struct hid_keymap *)h->ctx.keymap);
		free(h);
		return -EINVAL;
	}
	hid_desc_class(h->class_desc, h->report_desc_len);
	desc->cls = 3;
	desc->subcls = hid_desc_subclass(h->ctx.kind);
	desc->proto = hid_desc_protocol(h->ctx.kind);
	if (h->ctx.custom_len)
		desc->subcls = desc->proto = 0;
	desc->interface_string = "gadgetd HID";
	desc->class_desc = h->class_desc;
	desc->class_desc_len = sizeof(h->class_desc);
	desc->n_eps = 1;
	desc->eps[HID_EP_IN].type = PLUGIN_EP_INTR_IN;
	desc->eps[HID_EP_IN].intr_max_packet = h->report_len <= 8 ? 8 : HID_DESC_REPORT_MAX;
	desc->eps[HID_EP_IN].intr_interval = HID_INTERVAL_HS;
	*priv = h;
	return 0;
}

static void hid_finish(void *priv)
{
	struct hid *h = priv;
	unsigned i;

	if (h->timer)
		loop_watch_remove(h->timer);
	for (i = 0; i < HID_FWD_DEVICES; i++)
		if (h->dev[i].w)
			loop_watch_remove(h->dev[i].w);
	hid_cmd_job_finish(&h->job);
	hid_keymap_free((struct hid_keymap *)h->ctx.keymap);
	free(h);
}

extern const struct plugin_meta hid_meta; /* hid_meta.c */

const struct plugin_ops gadgetd_plugin = {
	.abi_version = PLUGIN_ABI_VERSION,
	.name = "hid",
	.meta = &hid_meta,
	.init = hid_init,
	.finish = hid_finish,
	.enable = hid_enable,
	.disable = hid_disable,
	.setup = hid_setup,
	.setup_data = hid_setup_data,
	.tx_result = hid_tx_result,
	.suspend = hid_suspend,
	.command = hid_command,
	.input = hid_input,
	.input_gone = hid_input_gone,
	.input_state = hid_input_state,
};
