/*
 * echo: a vendor-specific (ff/ff/ff) interface with one bulk IN and one
 * bulk OUT endpoint; every byte read on OUT is written back on IN. It is
 * the runtime's own test load and benchmark.
 *
 * Control requests (vendor, to the interface):
 *   IN  1: returns the stored control message ("gadgetd echo" at first)
 *   OUT 2: stores up to ECHO_CTRL_MAX bytes as the new message
 * Anything else is stalled.
 */
#include "plugin.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define ECHO_EP_IN 0
#define ECHO_EP_OUT 1
#define ECHO_CTRL_MAX 64

struct echo {
	struct plugin *p;
	uint64_t bytes_in;
	uint64_t bytes_out;
	uint64_t zlps;
	unsigned enables;
	bool paused;
	uint8_t ctrl[ECHO_CTRL_MAX];
	size_t ctrl_len;
};

static int echo_init(struct plugin *p, struct plugin_desc *desc, void **priv)
{
	struct echo *e = calloc(1, sizeof(*e));
	bool ms_os;

	if (!e)
		return -ENOMEM;
	if (plugin_option_bool(p, "ms_os", &ms_os) < 0) {
		free(e);
		return -EINVAL;
	}
	e->p = p;
	e->ctrl_len = strlen("gadgetd echo");
	memcpy(e->ctrl, "gadgetd echo", e->ctrl_len);
	desc->cls = desc->subcls = desc->proto = 0xff;
	desc->interface_string = "gadgetd echo";
	desc->n_eps = 2;
	desc->eps[ECHO_EP_IN].type = PLUGIN_EP_BULK_IN;
	desc->eps[ECHO_EP_OUT].type = PLUGIN_EP_BULK_OUT;
	/* WinUSB binding exercises the runtime's MS OS descriptors. */
	if (ms_os) {
		desc->ms_compat_id = "WINUSB";
		desc->n_props = 1;
		desc->props[0].name = "DeviceInterfaceGUID";
		desc->props[0].value = "{9a3c2f1e-5b7d-4e8a-9c06-2d1f4b8e7a55}";
	}
	*priv = e;
	return 0;
}

static void echo_finish(void *priv)
{
	free(priv);
}

static void echo_enable(void *priv)
{
	struct echo *e = priv;

	e->enables++;
	e->paused = false;
	plugin_rx_enable(e->p, ECHO_EP_OUT, true);
}

static void echo_disable(void *priv)
{
	struct echo *e = priv;

	e->paused = false;
}

static void echo_rx(void *priv, unsigned ep, const uint8_t *data, size_t len)
{
	struct echo *e = priv;
	int r;

	e->bytes_in += len;
	if (!len) {
		e->zlps++;
		return;
	}
	r = plugin_write(e->p, ECHO_EP_IN, data, len);
	if (r < 0)
		return;
	e->bytes_out += len;
	/* Stop reading while the host is slow to take the echo back. */
	if (plugin_tx_queued(e->p, ECHO_EP_IN) >= PLUGIN_TX_HIGH) {
		e->paused = true;
		plugin_rx_enable(e->p, ECHO_EP_OUT, false);
	}
}

static void echo_tx_drained(void *priv, unsigned ep)
{
	struct echo *e = priv;

	if (e->paused) {
		e->paused = false;
		plugin_rx_enable(e->p, ECHO_EP_OUT, true);
	}
}

static int echo_setup(void *priv, const struct usb_ctrlrequest *req,
		      uint8_t *in)
{
	struct echo *e = priv;
	size_t n;

	if ((req->bRequestType & USB_TYPE_MASK) != USB_TYPE_VENDOR)
		return -EOPNOTSUPP;
	if (req->bRequestType & USB_DIR_IN) {
		if (req->bRequest != 1)
			return -EOPNOTSUPP;
		n = e->ctrl_len < req->wLength ? e->ctrl_len : req->wLength;
		memcpy(in, e->ctrl, n);
		return n;
	}
	if (req->bRequest != 2 || req->wLength > ECHO_CTRL_MAX)
		return -EOPNOTSUPP;
	return 0;
}

static void echo_setup_data(void *priv, const struct usb_ctrlrequest *req,
			    const uint8_t *data, size_t len)
{
	struct echo *e = priv;

	e->ctrl_len = len < ECHO_CTRL_MAX ? len : ECHO_CTRL_MAX;
	memcpy(e->ctrl, data, e->ctrl_len);
}

static int echo_command(void *priv, int argc, char **argv, char *reply,
			size_t size)
{
	struct echo *e = priv;

	if (argc == 1 && !strcmp(argv[0], "stats")) {
		snprintf(reply, size, "in %" PRIu64 " out %" PRIu64
			 " zlp %" PRIu64 " enables %u", e->bytes_in,
			 e->bytes_out, e->zlps, e->enables);
		return 0;
	}
	/* A system call outside the worker's seccomp filter: the loopback
	 * suite checks that the worker dies of it and gadgetd says so. */
	if (argc == 1 && !strcmp(argv[0], "forbidden")) {
		int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

		snprintf(reply, size, "still alive (fd %d): no seccomp filter", fd);
		return -EPERM;
	}
	snprintf(reply, size, "usage: stats");
	return -EINVAL;
}

extern const struct plugin_meta echo_meta; /* echo_meta.c */

const struct plugin_ops gadgetd_plugin = {
	.abi_version = PLUGIN_ABI_VERSION,
	.name = "echo",
	.meta = &echo_meta,
	.init = echo_init,
	.finish = echo_finish,
	.enable = echo_enable,
	.disable = echo_disable,
	.setup = echo_setup,
	.setup_data = echo_setup_data,
	.rx = echo_rx,
	.tx_drained = echo_tx_drained,
	.command = echo_command,
};
