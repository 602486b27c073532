/* A fake of the plugin_* runtime API for the adb plugin's unit tests. */
#ifndef FAKE_PLUGIN_ADB_H
#define FAKE_PLUGIN_ADB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plugin.h"

#define FAKE_MAX_XFERS 4096

struct fake_xfer {
	unsigned ep;
	size_t len;
	uint8_t *data;
};

struct fake_plugin {
	struct loop *loop;
	const char *options[16][2];
	unsigned n_options;
	struct fake_xfer xfers[FAKE_MAX_XFERS];
	unsigned n_xfers;
	unsigned consumed; /* xfers already looked at by fake_next_msg */
	size_t tx_queued;  /* what plugin_tx_queued() answers */
	int write_rc;      /* what plugin_write() returns */
	char status_state[64];
	char status_host[512];
	enum plugin_root root; /* what plugin_root() answers */
	int root_asked;        /* -1, or the last plugin_request_root() */
	int tcp_asked;         /* -1, or the last plugin_request_tcp() */
	char status_tcp[64];
	/* plugin_keys_append(): what the plugin asked gadgetd to add to
	 * its keys file, and the answer it waits for (fake_keys_answer). */
	char keys_line[4096];
	unsigned keys_asked;
	plugin_keys_fn keys_done;
	void *keys_data;
	/* What plugin_locked() answers (the test calls ops->lock too). */
	bool locked;
	/* plugin_command_reply(): the last answer given later. */
	unsigned replies;
	int reply_rc;
	char reply[1024];
};

/* The plugin handle to pass to ops->init. */
struct plugin *fake_plugin_new(struct loop *loop);
struct fake_plugin *fake_of(struct plugin *p);
void fake_plugin_free(struct plugin *p);
void fake_set_option(struct plugin *p, const char *key, const char *value);
void fake_clear_xfers(struct plugin *p);

/*
 * gadgetd's side of plugin_keys_append(): with rc 0, append the line the
 * plugin gave (and a newline) to path as gadgetd would; then hand rc to
 * the plugin. Fails the test when nothing waits.
 */
void fake_keys_answer(struct plugin *p, const char *path, int rc);

/*
 * The next ADB message the plugin sent: a 24-byte header transfer, then
 * (when its length is not 0) the payload transfer. Returns 1 and fills
 * the fields, 0 when nothing is left. Fails the test for bad framing.
 */
int fake_next_msg(struct plugin *p, uint32_t *cmd, uint32_t *arg0,
		  uint32_t *arg1, const uint8_t **payload, uint32_t *len);

#endif
