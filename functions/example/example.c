/*
 * example: a plugin built out of gadgetd's tree, against the installed
 * API alone (gadgetd-plugin(7); `make` here uses only
 * `pkg-config gadgetd-plugin`). Copy this folder to start your own.
 *
 * It is a vendor-specific interface (ff/42/01, "gadgetd example") with a
 * bulk OUT and a bulk IN endpoint: what the host writes on OUT comes
 * back on IN, its letters in upper case. A vendor IN control request 1
 * to the interface reads the greeting.
 *
 * Options (profile: options: { greeting = "..."; repeat = N; }):
 *   greeting  a string, at most 32 characters (default "hello")
 *   repeat    1..8: how many times `hello` says it (default 1)
 *   lock_gated  true (default): while the device is locked (`gadgetctl
 *             lock`), what the host writes is dropped, not echoed
 * Commands (gadgetctl FUNCTION COMMAND):
 *   hello     the greeting, repeat times
 *   stats     bytes received and sent
 * Status (gadgetctl status): "greeting", "bytes" and "locked".
 */
#include "plugin.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXAMPLE_EP_IN 0
#define EXAMPLE_EP_OUT 1
#define EXAMPLE_CHUNK 16384

struct example {
	struct plugin *p;
	const char *greeting;
	long long repeat;
	uint64_t bytes_in, bytes_out;
	uint8_t buf[EXAMPLE_CHUNK];
};

static const struct optdesc example_options[] = {
	{ .name = "greeting", .type = OPTDESC_STRING, .max = 32, .def = "hello",
	  .help = "what the hello command and control request 1 say" },
	{ .name = "repeat", .type = OPTDESC_INT, .min = 1, .max = 8, .def = "1",
	  .help = "how many times hello says the greeting" },
	/* The runtime reads this one: plugin_locked() and ops->lock. */
	{ .name = "lock_gated", .type = OPTDESC_BOOL, .def = "true",
	  .help = "while the device is locked, echo nothing" },
	{ 0 }
};

static const struct plugin_command example_commands[] = {
	{ "hello", "", "the greeting", PLUGIN_ACCESS_READ },
	{ "stats", "", "bytes received and sent", PLUGIN_ACCESS_READ },
	{ 0 }
};

/* Its worker runs as gadgetd-worker, the user of plugins that name none. */
static const struct plugin_meta example_meta = {
	.name = "example",
	.options = example_options,
	.commands = example_commands,
};

static void example_status(struct example *e)
{
	char n[32];

	snprintf(n, sizeof(n), "%" PRIu64, e->bytes_in);
	plugin_set_status(e->p, "bytes", n);
}

static int example_init(struct plugin *p, struct plugin_desc *desc, void **priv)
{
	struct example *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->p = p;
	e->greeting = plugin_option_or_default(p, "greeting");
	if (plugin_option_int(p, "repeat", &e->repeat) < 0) {
		free(e);
		return -EINVAL;
	}
	desc->cls = 0xff;
	desc->subcls = 0x42;
	desc->proto = 0x01;
	desc->interface_string = "gadgetd example";
	desc->n_eps = 2;
	desc->eps[EXAMPLE_EP_IN].type = PLUGIN_EP_BULK_IN;
	desc->eps[EXAMPLE_EP_OUT].type = PLUGIN_EP_BULK_OUT;
	plugin_set_status(p, "greeting", e->greeting);
	plugin_set_status(p, "locked", plugin_locked(p) ? "yes" : "no");
	example_status(e);
	*priv = e;
	return 0;
}

static void example_finish(void *priv)
{
	free(priv);
}

/* Every chunk the host sends comes back at once, upper-cased. */
static void example_rx(void *priv, unsigned ep, const uint8_t *data, size_t len)
{
	struct example *e = priv;
	size_t i;

	e->bytes_in += len;
	/* Locked: no data goes back to the host. */
	if (plugin_locked(e->p)) {
		example_status(e);
		return;
	}
	if (len > sizeof(e->buf))
		len = sizeof(e->buf);
	for (i = 0; i < len; i++)
		e->buf[i] = toupper(data[i]);
	if (len && plugin_write(e->p, EXAMPLE_EP_IN, e->buf, len) == 0)
		e->bytes_out += len;
	example_status(e);
}

/* Called on a change only; init read the state it starts in. */
static void example_lock(void *priv, bool locked)
{
	struct example *e = priv;

	plugin_set_status(e->p, "locked", locked ? "yes" : "no");
}

static int example_setup(void *priv, const struct usb_ctrlrequest *req, uint8_t *in)
{
	struct example *e = priv;
	size_t n = strlen(e->greeting);

	if ((req->bRequestType & USB_TYPE_MASK) != USB_TYPE_VENDOR ||
	    !(req->bRequestType & USB_DIR_IN) || req->bRequest != 1)
		return -EOPNOTSUPP;
	if (n > req->wLength)
		n = req->wLength;
	memcpy(in, e->greeting, n);
	return n;
}

static int example_command(void *priv, int argc, char **argv, char *reply,
			   size_t size)
{
	struct example *e = priv;
	size_t n = 0;
	long long i;

	if (argc == 1 && !strcmp(argv[0], "hello")) {
		reply[0] = '\0';
		for (i = 0; i < e->repeat && n < size; i++)
			n += snprintf(reply + n, size - n, "%s%s", i ? " " : "", e->greeting);
		return 0;
	}
	if (argc == 1 && !strcmp(argv[0], "stats")) {
		snprintf(reply, size, "in %" PRIu64 " out %" PRIu64, e->bytes_in,
			 e->bytes_out);
		return 0;
	}
	snprintf(reply, size, "usage: hello | stats");
	return -EINVAL;
}

const struct plugin_ops gadgetd_plugin = {
	.abi_version = PLUGIN_ABI_VERSION,
	.name = "example",
	.meta = &example_meta,
	.init = example_init,
	.finish = example_finish,
	.rx = example_rx,
	.setup = example_setup,
	.command = example_command,
	.lock = example_lock,
};
