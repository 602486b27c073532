/*
 * fake_plugin_accessory: the plugin_* runtime API as a test double for the
 * accessory plugin. It records IN writes, rx enables, switch requests and
 * status values, and lets the test set the options, the host state and
 * how much IN data is still queued.
 */
#ifndef GADGETD_FAKE_PLUGIN_ACCESSORY_H
#define GADGETD_FAKE_PLUGIN_ACCESSORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct loop;
struct plugin;

/* Forget everything; the fake's loop is l. */
struct plugin *fake_plugin_reset(struct loop *l);
void fake_plugin_set_option(const char *key, const char *value);
/* Host state as plugin_write and plugin_max_packet see it. */
void fake_plugin_set_enabled(bool on);
/* The host read n queued IN bytes. */
void fake_plugin_tx_complete(size_t n);
/* Make plugin_write fail with err (0: succeed again). */
void fake_plugin_fail_writes(int err);

/* Every IN byte written, concatenated; ZLPs counted apart. */
const uint8_t *fake_plugin_in_data(size_t *len);
unsigned fake_plugin_in_writes(void);
unsigned fake_plugin_in_zlps(void);
/* Whether the last call of plugin_rx_enable for ep switched reads on. */
bool fake_plugin_rx_on(unsigned ep);
unsigned fake_plugin_switch_count(void);
const char *fake_plugin_last_switch(void);
/* The last value published for key, or NULL. */
const char *fake_plugin_status(const char *key);

#endif
