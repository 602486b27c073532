/* A fake of the plugin_* runtime API for the mtp plugin's unit tests. */
#ifndef GADGETD_FAKE_PLUGIN_MTP_H
#define GADGETD_FAKE_PLUGIN_MTP_H

#include "plugin.h"

#include <stddef.h>
#include <stdint.h>

#define FAKE_MTP_MAX_XFERS 4096

struct fake_mtp_xfer {
	unsigned ep;
	size_t off; /* into fake_mtp_data() */
	size_t len;
};

/* Forget everything; returns the struct plugin * to hand to init. */
struct plugin *fake_mtp_reset(void);
/* What plugin_loop() returns (NULL by default; kept across resets). */
void fake_mtp_set_loop(struct loop *l);
void fake_mtp_set_option(const char *key, const char *value);
void fake_mtp_set_enabled(bool on, unsigned max_packet);
/* What plugin_locked() answers, reset by fake_mtp_reset (the test calls
 * ops->lock too). */
void fake_mtp_set_locked(bool locked);
/* IN transfers recorded since the last reset or clear. */
unsigned fake_mtp_n_xfers(void);
const struct fake_mtp_xfer *fake_mtp_xfer(unsigned i);
const uint8_t *fake_mtp_data(void);
void fake_mtp_clear(void);
/* Pretend the queued IN data went out (plugin_tx_queued drops to 0). */
void fake_mtp_drain(void);
/* Make plugin_tx_queued report at least this much (to test pacing). */
void fake_mtp_set_queued(size_t n);
const char *fake_mtp_status(const char *key);

#endif
