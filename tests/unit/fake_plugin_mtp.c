#include "fake_plugin_mtp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_MAX_OPTS 32
#define FAKE_DATA_MAX (64 * 1024 * 1024)

struct fake_kv {
	char key[64];
	char value[256];
};

static struct {
	struct fake_kv opts[FAKE_MAX_OPTS];
	unsigned n_opts;
	struct fake_kv status[8];
	unsigned n_status;
	bool enabled;
	bool locked; /* what plugin_locked() answers */
	unsigned mps;
	uint8_t *data;
	size_t len;
	size_t queued;
	struct fake_mtp_xfer xfers[FAKE_MTP_MAX_XFERS];
	unsigned n_xfers;
} fake;

static int fake_token;
static struct loop *fake_loop;

void fake_mtp_set_loop(struct loop *l)
{
	fake_loop = l;
}

struct plugin *fake_mtp_reset(void)
{
	free(fake.data);
	memset(&fake, 0, sizeof(fake));
	fake.data = malloc(FAKE_DATA_MAX);
	return (struct plugin *)&fake_token;
}

void fake_mtp_set_option(const char *key, const char *value)
{
	struct fake_kv *kv = &fake.opts[fake.n_opts++];

	strncpy(kv->key, key, sizeof(kv->key) - 1);
	strncpy(kv->value, value, sizeof(kv->value) - 1);
}

void fake_mtp_set_locked(bool locked)
{
	fake.locked = locked;
}

bool plugin_locked(struct plugin *p)
{
	(void)p;
	return fake.locked;
}

void fake_mtp_set_enabled(bool on, unsigned max_packet)
{
	fake.enabled = on;
	fake.mps = max_packet;
}

unsigned fake_mtp_n_xfers(void)
{
	return fake.n_xfers;
}

const struct fake_mtp_xfer *fake_mtp_xfer(unsigned i)
{
	return i < fake.n_xfers ? &fake.xfers[i] : NULL;
}

const uint8_t *fake_mtp_data(void)
{
	return fake.data;
}

void fake_mtp_clear(void)
{
	fake.len = 0;
	fake.n_xfers = 0;
	fake.queued = 0;
}

void fake_mtp_drain(void)
{
	fake.queued = 0;
}

void fake_mtp_set_queued(size_t n)
{
	fake.queued = n;
}

const char *fake_mtp_status(const char *key)
{
	for (unsigned i = fake.n_status; i-- > 0;)
		if (!strcmp(fake.status[i].key, key))
			return fake.status[i].value;
	return NULL;
}

struct loop *plugin_loop(struct plugin *p)
{
	return fake_loop;
}

const char *plugin_instance(struct plugin *p)
{
	return "mtp";
}

const char *plugin_option(struct plugin *p, const char *key)
{
	for (unsigned i = 0; i < fake.n_opts; i++)
		if (!strcmp(fake.opts[i].key, key))
			return fake.opts[i].value;
	return NULL;
}

int plugin_write(struct plugin *p, unsigned ep, const void *buf, size_t len)
{
	struct fake_mtp_xfer *x;

	if (ep >= PLUGIN_MAX_EPS || len > PLUGIN_MAX_XFER)
		return -EINVAL;
	if (!fake.enabled)
		return -ESHUTDOWN;
	if (fake.n_xfers == FAKE_MTP_MAX_XFERS ||
	    fake.len + len > FAKE_DATA_MAX)
		return -ENOMEM;
	x = &fake.xfers[fake.n_xfers++];
	x->ep = ep;
	x->off = fake.len;
	x->len = len;
	if (len)
		memcpy(fake.data + fake.len, buf, len);
	fake.len += len;
	if (ep == 0)
		fake.queued += len;
	return 0;
}

size_t plugin_tx_queued(struct plugin *p, unsigned ep)
{
	return ep == 0 ? fake.queued : 0;
}

unsigned plugin_max_packet(struct plugin *p, unsigned ep)
{
	return fake.enabled ? fake.mps : 0;
}

void plugin_rx_enable(struct plugin *p, unsigned ep, bool on)
{
}

int plugin_request_switch(struct plugin *p, const char *request)
{
	return -ENOTSUP;
}

void plugin_set_status(struct plugin *p, const char *key, const char *value)
{
	struct fake_kv *kv;

	if (fake.n_status == 8)
		fake.n_status = 0;
	kv = &fake.status[fake.n_status++];
	strncpy(kv->key, key, sizeof(kv->key) - 1);
	strncpy(kv->value, value, sizeof(kv->value) - 1);
}
