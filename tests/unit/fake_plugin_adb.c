/* Fake plugin runtime: records IN transfers, serves options. */
#include "fake_plugin_adb.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

struct plugin {
	struct fake_plugin f;
};

struct plugin *fake_plugin_new(struct loop *loop)
{
	struct plugin *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	p->f.loop = loop;
	p->f.root_asked = -1;
	p->f.tcp_asked = -1;
	return p;
}

struct fake_plugin *fake_of(struct plugin *p)
{
	return &p->f;
}

void fake_clear_xfers(struct plugin *p)
{
	for (unsigned i = 0; i < p->f.n_xfers; i++)
		free(p->f.xfers[i].data);
	p->f.n_xfers = 0;
	p->f.consumed = 0;
}

void fake_plugin_free(struct plugin *p)
{
	fake_clear_xfers(p);
	free(p);
}

void fake_set_option(struct plugin *p, const char *key, const char *value)
{
	assert_true(p->f.n_options < 16);
	p->f.options[p->f.n_options][0] = key;
	p->f.options[p->f.n_options][1] = value;
	p->f.n_options++;
}

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

int fake_next_msg(struct plugin *p, uint32_t *cmd, uint32_t *arg0,
		  uint32_t *arg1, const uint8_t **payload, uint32_t *len)
{
	struct fake_plugin *f = &p->f;
	const struct fake_xfer *x;

	if (f->consumed >= f->n_xfers)
		return 0;
	x = &f->xfers[f->consumed++];
	assert_int_equal(x->len, 24); /* headers go in their own transfer */
	*cmd = le32(x->data);
	*arg0 = le32(x->data + 4);
	*arg1 = le32(x->data + 8);
	*len = le32(x->data + 12);
	assert_int_equal(le32(x->data + 20), *cmd ^ 0xffffffffu);
	*payload = NULL;
	if (*len) {
		assert_true(f->consumed < f->n_xfers);
		x = &f->xfers[f->consumed++];
		assert_int_equal(x->len, *len);
		*payload = x->data;
	}
	return 1;
}

struct loop *plugin_loop(struct plugin *p)
{
	return p->f.loop;
}

bool plugin_locked(struct plugin *p)
{
	return p->f.locked;
}

const char *plugin_instance(struct plugin *p)
{
	return "adb";
}

const char *plugin_option(struct plugin *p, const char *key)
{
	for (unsigned i = 0; i < p->f.n_options; i++)
		if (!strcmp(p->f.options[i][0], key))
			return p->f.options[i][1];
	return NULL;
}

int plugin_write(struct plugin *p, unsigned ep, const void *buf, size_t len)
{
	struct fake_xfer *x;

	if (p->f.write_rc)
		return p->f.write_rc;
	if (len > PLUGIN_MAX_XFER)
		return -EINVAL;
	assert_true(p->f.n_xfers < FAKE_MAX_XFERS);
	x = &p->f.xfers[p->f.n_xfers++];
	x->ep = ep;
	x->len = len;
	x->data = malloc(len ? len : 1);
	assert_non_null(x->data);
	memcpy(x->data, buf, len);
	return 0;
}

size_t plugin_tx_queued(struct plugin *p, unsigned ep)
{
	return p->f.tx_queued;
}

unsigned plugin_max_packet(struct plugin *p, unsigned ep)
{
	return 512;
}

void plugin_rx_enable(struct plugin *p, unsigned ep, bool on)
{
}

int plugin_request_switch(struct plugin *p, const char *request)
{
	return 0;
}

enum plugin_root plugin_root(struct plugin *p)
{
	return p->f.root;
}

int plugin_request_tcp(struct plugin *p, unsigned port)
{
	p->f.tcp_asked = (int)port;
	return 0;
}

int plugin_request_root(struct plugin *p, bool on)
{
	p->f.root_asked = on ? 1 : 0;
	return 0;
}

void plugin_set_status(struct plugin *p, const char *key, const char *value)
{
	if (!strcmp(key, "tcp"))
		snprintf(p->f.status_tcp, sizeof(p->f.status_tcp), "%s", value);
	else if (!strcmp(key, "state"))
		snprintf(p->f.status_state, sizeof(p->f.status_state), "%s",
			 value);
	else if (!strcmp(key, "host"))
		snprintf(p->f.status_host, sizeof(p->f.status_host), "%s",
			 value);
}

int plugin_keys_append(struct plugin *p, const char *line, plugin_keys_fn done,
		       void *data)
{
	if (p->f.keys_done)
		return -EBUSY;
	snprintf(p->f.keys_line, sizeof(p->f.keys_line), "%s", line);
	p->f.keys_asked++;
	p->f.keys_done = done;
	p->f.keys_data = data;
	return 0;
}

void fake_keys_answer(struct plugin *p, const char *path, int rc)
{
	plugin_keys_fn done = p->f.keys_done;
	FILE *f;

	assert_non_null(done);
	if (rc == 0) {
		f = fopen(path, "a");
		assert_non_null(f);
		fprintf(f, "%s\n", p->f.keys_line);
		assert_int_equal(fclose(f), 0);
	}
	p->f.keys_done = NULL;
	done(p->f.keys_data, rc);
}

int plugin_command_reply(struct plugin *p, int rc, const char *reply)
{
	p->f.replies++;
	p->f.reply_rc = rc;
	snprintf(p->f.reply, sizeof(p->f.reply), "%s", reply);
	return 0;
}
