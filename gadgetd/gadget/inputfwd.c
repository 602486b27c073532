/*
 * inputfwd: local input devices found with libudev, opened, grabbed and
 * handed to the forwarding workers (inputfwd.h).
 */
#include "inputfwd.h"
#include "log.h"
#include "loop.h"
#include "supervisor.h"
#include "wmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <libudev.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The most devices forwarded at once. */
#define INPUTFWD_DEVICES_MAX 16

struct inputfwd_dev {
	struct inputfwd *f;
	uint32_t id;
	char syspath[256];
	char label[WMSG_INPUT_LABEL_MAX];
	char function[INPUTFWD_FUNCTION_MAX];
	struct loop_watch *w; /* gadgetd's copy of the fd */
	pid_t sent_pid;       /* the worker run that has it */
	bool used;
};

struct inputfwd {
	struct loop *loop;
	struct supervisor *sup;
	struct udev *udev;
	struct udev_monitor *mon;
	struct loop_watch *mon_w;
	struct inputfwd_want want[INPUTFWD_DEVICES_MAX];
	unsigned n_want;
	uint16_t vendor, product;
	bool grabbed;
	uint32_t next_id;
	struct inputfwd_dev dev[INPUTFWD_DEVICES_MAX];
};

static void inputfwd_drop(struct inputfwd_dev *d, const char *why)
{
	int fd;

	if (!d->used)
		return;
	log_info("input: %s released to the board (%s)", d->label, why);
	fd = loop_watch_fd(d->w);
	/* Before the worker closes its copy: the board has it back now. */
	ioctl(fd, EVIOCGRAB, (void *)0);
	loop_watch_remove(d->w);
	supervisor_input_gone(d->f->sup, d->function, d->id);
	d->used = false;
}

static void inputfwd_dev_io(struct loop_watch *w, int fd, uint32_t events, void *data)
{
	struct inputfwd_dev *d = data;

	(void)w;
	(void)fd;
	if (events & (EPOLLHUP | EPOLLERR))
		inputfwd_drop(d, "it went");
}

/* This gadget's own host side: a USB device with the set's ids, or
 * anything below dummy_hcd (inputfwd.h). */
static bool inputfwd_loop(struct inputfwd *f, struct udev_device *dev)
{
	struct udev_device *usb = udev_device_get_parent_with_subsystem_devtype(dev, "usb",
										"usb_device");
	const char *v, *p, *path = udev_device_get_syspath(dev);

	if (path && strstr(path, "/dummy_hcd."))
		return true;
	if (!usb)
		return false;
	v = udev_device_get_sysattr_value(usb, "idVendor");
	p = udev_device_get_sysattr_value(usb, "idProduct");
	return v && p && strtoul(v, NULL, 16) == f->vendor && strtoul(p, NULL, 16) == f->product;
}

static const char *inputfwd_prop(const char *key, const void *ctx)
{
	return udev_device_get_property_value((struct udev_device *)ctx, key);
}

static uint16_t inputfwd_attr16(struct udev_device *in, const char *attr)
{
	const char *v = in ? udev_device_get_sysattr_value(in, attr) : NULL;

	return v ? (uint16_t)strtoul(v, NULL, 16) : 0;
}

/* The forwarding function that takes dev, or NULL. */
static const struct inputfwd_want *inputfwd_pick(struct inputfwd *f, struct udev_device *dev,
						 const char **name)
{
	struct udev_device *in = udev_device_get_parent_with_subsystem_devtype(dev, "input", NULL);
	const char *kbd = udev_device_get_property_value(dev, "ID_INPUT_KEYBOARD");
	const char *mouse = udev_device_get_property_value(dev, "ID_INPUT_MOUSE");
	struct inputmatch_dev md = { .prop = inputfwd_prop, .ctx = dev };
	unsigned pass, i;

	*name = in ? udev_device_get_sysattr_value(in, "name") : NULL;
	md.name = *name;
	md.vendor = inputfwd_attr16(in, "id/vendor");
	md.product = inputfwd_attr16(in, "id/product");
	md.bus = inputfwd_attr16(in, "id/bustype");
	/* A keyboard with a pointer on the same node goes to a keyboard
	 * function first: one reader per device. */
	for (pass = 0; pass < 2; pass++) {
		bool keys = pass == 0;

		if (!(keys ? kbd && !strcmp(kbd, "1") : mouse && !strcmp(mouse, "1")))
			continue;
		for (i = 0; i < f->n_want; i++)
			if (f->want[i].keys == keys && inputmatch_match(&f->want[i].match, &md))
				return &f->want[i];
	}
	return NULL;
}

static struct inputfwd_dev *inputfwd_find(struct inputfwd *f, const char *syspath)
{
	unsigned i;

	for (i = 0; i < INPUTFWD_DEVICES_MAX; i++)
		if (f->dev[i].used && !strcmp(f->dev[i].syspath, syspath))
			return &f->dev[i];
	return NULL;
}

static void inputfwd_give(struct inputfwd_dev *d)
{
	pid_t pid = supervisor_input_pid(d->f->sup, d->function);

	if (!pid || pid == d->sent_pid)
		return;
	if (supervisor_input_give(d->f->sup, d->function, d->id, loop_watch_fd(d->w),
				  d->f->grabbed, d->label) == 0)
		d->sent_pid = pid;
}

static int inputfwd_open(struct inputfwd *f, struct inputfwd_dev *d, const char *node)
{
	int fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		log_warn("input: cannot open %s", d->label);
		return -errno;
	}
	if (f->grabbed && ioctl(fd, EVIOCGRAB, (void *)1) < 0) {
		/* Another program has it (EBUSY): leave it to that one. */
		log_warn("input: cannot grab %s; not forwarded", d->label);
		close(fd);
		return -EBUSY;
	}
	d->w = loop_add_fd(f->loop, fd, 0, inputfwd_dev_io, d);
	if (!d->w) {
		ioctl(fd, EVIOCGRAB, (void *)0);
		close(fd);
		return -ENOMEM;
	}
	return 0;
}

static void inputfwd_add(struct inputfwd *f, struct udev_device *dev)
{
	const char *node = udev_device_get_devnode(dev), *path = udev_device_get_syspath(dev);
	const struct inputfwd_want *w;
	struct inputfwd_dev *d = NULL;
	const char *name;
	unsigned i;

	if (!node || strncmp(node, "/dev/input/event", 16) || !path ||
	    strlen(path) >= sizeof(d->syspath) || inputfwd_find(f, path) ||
	    inputfwd_loop(f, dev) || !(w = inputfwd_pick(f, dev, &name)))
		return;
	for (i = 0; i < INPUTFWD_DEVICES_MAX && !d; i++)
		if (!f->dev[i].used)
			d = &f->dev[i];
	if (!d) {
		log_warnx("input: %s: already %d devices forwarded; not this one", node,
			  INPUTFWD_DEVICES_MAX);
		return;
	}
	memset(d, 0, sizeof(*d));
	d->f = f;
	d->id = ++f->next_id;
	snprintf(d->syspath, sizeof(d->syspath), "%s", path);
	snprintf(d->label, sizeof(d->label), "%s %s", node + 11, name ? name : "?");
	snprintf(d->function, sizeof(d->function), "%s", w->function);
	if (inputfwd_open(f, d, node) < 0)
		return;
	d->used = true;
	log_info("input: %s forwarded to %s%s", d->label, d->function,
		 f->grabbed ? "" : " (released to the board for now)");
	inputfwd_give(d);
}

static void inputfwd_mon_io(struct loop_watch *w, int fd, uint32_t events, void *data)
{
	struct inputfwd *f = data;
	struct udev_device *dev;
	struct inputfwd_dev *d;
	const char *action;
	unsigned n = 0;

	(void)w;
	(void)fd;
	(void)events;
	/* Bounded per wake-up: the rest waits for the next. */
	while (n++ < 64 && (dev = udev_monitor_receive_device(f->mon))) {
		action = udev_device_get_action(dev);
		if (action && !strcmp(action, "remove")) {
			d = inputfwd_find(f, udev_device_get_syspath(dev));
			if (d)
				inputfwd_drop(d, "it went");
		} else if (action && !strcmp(action, "add")) {
			inputfwd_add(f, dev);
		}
		udev_device_unref(dev);
	}
}

static void inputfwd_enumerate(struct inputfwd *f)
{
	struct udev_enumerate *e = udev_enumerate_new(f->udev);
	struct udev_list_entry *l;

	if (!e)
		return;
	udev_enumerate_add_match_subsystem(e, "input");
	udev_enumerate_scan_devices(e);
	udev_list_entry_foreach(l, udev_enumerate_get_list_entry(e)) {
		struct udev_device *dev = udev_device_new_from_syspath(f->udev,
								       udev_list_entry_get_name(l));

		if (!dev)
			continue;
		/* Only what udevd has seen: its properties say what it is. */
		if (udev_device_get_is_initialized(dev))
			inputfwd_add(f, dev);
		udev_device_unref(dev);
	}
	udev_enumerate_unref(e);
}

static void inputfwd_stop(struct inputfwd *f)
{
	unsigned i;

	for (i = 0; i < INPUTFWD_DEVICES_MAX; i++)
		inputfwd_drop(&f->dev[i], "forwarding stopped");
	if (f->mon_w)
		loop_watch_release(f->mon_w);
	f->mon_w = NULL;
	if (f->mon)
		udev_monitor_unref(f->mon);
	f->mon = NULL;
	f->n_want = 0;
}

static int inputfwd_start(struct inputfwd *f)
{
	f->mon = udev_monitor_new_from_netlink(f->udev, "udev");
	if (!f->mon || udev_monitor_filter_add_match_subsystem_devtype(f->mon, "input", NULL) < 0 ||
	    udev_monitor_enable_receiving(f->mon) < 0) {
		log_warnx("input: cannot follow udev's input devices; nothing forwarded");
		return -EIO;
	}
	f->mon_w = loop_add_fd(f->loop, udev_monitor_get_fd(f->mon), EPOLLIN, inputfwd_mon_io, f);
	if (!f->mon_w)
		return -ENOMEM;
	f->grabbed = true;
	inputfwd_enumerate(f);
	return 0;
}

void inputfwd_sync(struct inputfwd *f, const struct inputfwd_want *want, unsigned n,
		   uint16_t vendor, uint16_t product)
{
	unsigned i;

	if (!f)
		return;
	if (n > INPUTFWD_DEVICES_MAX)
		n = INPUTFWD_DEVICES_MAX;
	/* want may be NULL when n is 0 (no forwarding function). */
	if (n != f->n_want || vendor != f->vendor || product != f->product ||
	    (n && memcmp(want, f->want, n * sizeof(*want)))) {
		inputfwd_stop(f);
		if (!n)
			return;
		memcpy(f->want, want, n * sizeof(*want));
		f->n_want = n;
		f->vendor = vendor;
		f->product = product;
		if (inputfwd_start(f) < 0)
			inputfwd_stop(f);
		return;
	}
	/* A worker that restarted gets its devices again; one that failed
	 * (it crashed too often, supervisor.h) cannot forward them, so the
	 * board has them back until the next switch. */
	for (i = 0; i < INPUTFWD_DEVICES_MAX; i++) {
		if (!f->dev[i].used)
			continue;
		if (supervisor_failed(f->sup, f->dev[i].function))
			inputfwd_drop(&f->dev[i], "its function's worker failed");
		else
			inputfwd_give(&f->dev[i]);
	}
}

/* A forwarding worker asks to release, take or toggle every device. */
static void inputfwd_request(const char *function, unsigned how, void *data)
{
	struct inputfwd *f = data;
	bool grab;
	unsigned i;

	for (i = 0; i < f->n_want; i++)
		if (!strcmp(f->want[i].function, function))
			break;
	if (i == f->n_want) {
		log_warnx("%s: asked to release or take input devices, but it forwards none; "
			  "ignored", function);
		return;
	}
	grab = how == WMSG_GRAB_TOGGLE ? !f->grabbed : how == WMSG_GRAB_TAKE;
	for (i = 0; i < INPUTFWD_DEVICES_MAX; i++)
		if (f->dev[i].used &&
		    ioctl(loop_watch_fd(f->dev[i].w), EVIOCGRAB, (void *)(uintptr_t)grab) < 0 &&
		    grab)
			log_warn("input: cannot grab %s again", f->dev[i].label);
	if (grab != f->grabbed)
		log_info("input: devices %s (asked by %s)",
			 grab ? "grabbed again" : "released to the board", function);
	f->grabbed = grab;
	for (i = 0; i < f->n_want; i++)
		supervisor_input_state(f->sup, f->want[i].function, grab);
}

struct inputfwd *inputfwd_new(struct loop *l, struct supervisor *sup)
{
	struct inputfwd *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->udev = udev_new();
	if (!f->udev) {
		free(f);
		errno = ENOMEM;
		return NULL;
	}
	f->loop = l;
	f->sup = sup;
	f->grabbed = true;
	supervisor_input_set_fn(sup, inputfwd_request, f);
	return f;
}

void inputfwd_free(struct inputfwd *f)
{
	if (!f)
		return;
	inputfwd_stop(f);
	udev_unref(f->udev);
	free(f);
}
