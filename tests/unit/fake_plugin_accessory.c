#include "fake_plugin_accessory.h"
#include "plugin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_MAX_OPTS 16
#define FAKE_MAX_STATUS 32
#define FAKE_IN_MAX (8 * 1024 * 1024)

struct fake_kv {
	char key[64];
	char value[512];
};

static struct {
	struct loop *loop;
	struct fake_kv opts[FAKE_MAX_OPTS];
	unsigned n_opts;
	struct fake_kv status[FAKE_MAX_STATUS];
	unsigned n_status;
	bool enabled;
	int write_err;
	uint8_t *in;
	size_t in_len, queued;
	unsigned in_writes, zlps;
	bool rx_on[PLUGIN_MAX_EPS];
	unsigned switches;
	char last_switch[128];
} fake;

/* The fake has no state worth a real struct plugin: any non-NULL pointer
 * identifies it. */
static int fake_plugin_token;

struct plugin *fake_plugin_reset(struct loop *l)
{
	unsigned i;

	free(fake.in);
	memset(&fake, 0, sizeof(fake));
	fake.loop = l;
	fake.in = malloc(FAKE_IN_MAX);
	for (i = 0; i < PLUGIN_MAX_EPS; i++)
		fake.rx_on[i] = true;
	return (struct plugin *)&fake_plugin_token;
}

void fake_plugin_set_option(const char *key, const char *value)
{
	struct fake_kv *kv = &fake.opts[fake.n_opts++];

	strncpy(kv->key, key, sizeof(kv->key) - 1);
	strncpy(kv->value, value, sizeof(kv->value) - 1);
}

void fake_plugin_set_enabled(bool on)
{
	fake.enabled = on;
	if (!on)
		fake.queued = 0;
}

void fake_plugin_tx_complete(size_t n)
{
	fake.queued -= n < fake.queued ? n : fake.queued;
}

void fake_plugin_fail_writes(int err)
{
	fake.write_err = err;
}

const uint8_t *fake_plugin_in_data(size_t *len)
{
	*len = fake.in_len;
	return fake.in;
}

unsigned fake_plugin_in_writes(void)
{
	return fake.in_writes;
}

unsigned fake_plugin_in_zlps(void)
{
	return fake.zlps;
}

bool fake_plugin_rx_on(unsigned ep)
{
	return fake.rx_on[ep];
}

unsigned fake_plugin_switch_count(void)
{
	return fake.switches;
}

const char *fake_plugin_last_switch(void)
{
	return fake.last_switch;
}

const char *fake_plugin_status(const char *key)
{
	unsigned i;

	for (i = 0; i < fake.n_status; i++)
		if (!strcmp(fake.status[i].key, key))
			return fake.status[i].value;
	return NULL;
}

struct loop *plugin_loop(struct plugin *p)
{
	return fake.loop;
}

const char *plugin_instance(struct plugin *p)
{
	return "accessory";
}

const char *plugin_option(struct plugin *p, const char *key)
{
	unsigned i;

	for (i = 0; i < fake.n_opts; i++)
		if (!strcmp(fake.opts[i].key, key))
			return fake.opts[i].value;
	return NULL;
}

int plugin_write(struct plugin *p, unsigned ep, const void *buf, size_t len)
{
	if (ep >= PLUGIN_MAX_EPS || len > PLUGIN_MAX_XFER)
		return -EINVAL;
	if (!fake.enabled)
		return -ESHUTDOWN;
	if (fake.write_err)
		return fake.write_err;
	if (!len) {
		fake.zlps++;
		return 0;
	}
	if (fake.in_len + len > FAKE_IN_MAX)
		return -ENOMEM;
	memcpy(fake.in + fake.in_len, buf, len);
	fake.in_len += len;
	fake.queued += len;
	fake.in_writes++;
	return 0;
}

size_t plugin_tx_queued(struct plugin *p, unsigned ep)
{
	return fake.queued;
}

unsigned plugin_max_packet(struct plugin *p, unsigned ep)
{
	return fake.enabled ? 512 : 0;
}

void plugin_rx_enable(struct plugin *p, unsigned ep, bool on)
{
	if (ep < PLUGIN_MAX_EPS)
		fake.rx_on[ep] = on;
}

int plugin_request_switch(struct plugin *p, const char *request)
{
	fake.switches++;
	strncpy(fake.last_switch, request, sizeof(fake.last_switch) - 1);
	return 0;
}

void plugin_set_status(struct plugin *p, const char *key, const char *value)
{
	struct fake_kv *kv = NULL;
	unsigned i;

	for (i = 0; i < fake.n_status; i++)
		if (!strcmp(fake.status[i].key, key))
			kv = &fake.status[i];
	if (!kv && fake.n_status < FAKE_MAX_STATUS)
		kv = &fake.status[fake.n_status++];
	if (!kv)
		return;
	snprintf(kv->key, sizeof(kv->key), "%s", key);
	snprintf(kv->value, sizeof(kv->value), "%s", value);
}
