/*
 * fuzz_runtime: the plugin_* runtime API for fuzz targets that drive a
 * whole plugin through its ops table. Unlike the unit tests' fakes it keeps
 * nothing it is sent: every IN transfer goes to an optional check and is
 * dropped, so a run costs no more than the plugin's own work. Status values
 * are checked too: whatever a host sent, they stay NUL-terminated strings.
 */
#ifndef GADGETD_FUZZ_RUNTIME_H
#define GADGETD_FUZZ_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plugin.h"

/* Called for every IN transfer the plugin queues (len may be 0). */
typedef void (*fuzz_rt_tx_fn)(unsigned ep, const uint8_t *data, size_t len);

/* Forget options, queue and state; returns the handle to pass to init. */
struct plugin *fuzz_rt_reset(const char *instance, struct loop *loop);
/* Options live until the next reset; both strings must outlive it. */
void fuzz_rt_set_option(const char *key, const char *value);
void fuzz_rt_set_enabled(bool on, unsigned max_packet);
void fuzz_rt_set_tx_check(fuzz_rt_tx_fn fn);
/* The queued IN data went out: plugin_tx_queued() drops to 0. */
void fuzz_rt_drain(void);
/* The last value published for key, or NULL. */
const char *fuzz_rt_status(const char *key);
/*
 * The line plugin_keys_append() asked gadgetd to add to the keys file:
 * answer it as gadgetd does, rc 0 once the line is appended to the file
 * the "keys" option names (rc is then that write's), else rc; the
 * plugin's done runs. false when none waits.
 */
bool fuzz_rt_keys_answer(int rc);
/* The last plugin_command_reply() since the reset: its text (and *rc),
 * or NULL when none came. */
const char *fuzz_rt_command_reply(int *rc);

/*
 * A scratch directory on tmpfs for this process, /dev/shm/NAME.PID (at most
 * one per process), removed at exit. Those of runs that died (a crash
 * found) are removed first. Aborts when it cannot be made.
 */
const char *fuzz_rt_scratch(const char *name);
/* Remove what dir holds (not dir itself); aborts on failure. */
void fuzz_rt_empty_dir(const char *dir);

#endif
