#ifndef FAKE_GADGET_DEPS_H
#define FAKE_GADGET_DEPS_H

#include <stdbool.h>

#include "state.h"
#include "uplink.h"

struct loop;
struct config;

/* The profile folder of a test: a fresh mkdtemp() folder
 * /tmp/NAME.XXXXXX in dir (size bytes), then profiles written into it as
 * NAME.conf, and the configuration test_gadget, test_boot and test_dbus
 * share: profile "t" in that folder, the UDC found, no state file, no
 * FunctionFS, plugins ready within 100 ms. */
void fake_profile_dir(char *dir, size_t size, const char *name);
/* Remove the folder and every file in it. */
void fake_profile_dir_remove(const char *dir);
/* test_gadget's profile: sets acm,ecm (the default), ncm, acm,adb,
 * mtp,adb, mtp,adb,aoa (aoa's accessory_set: ncm), two of two
 * configurations and rndis,adb. */
extern const char fake_gadget_profile[];
void fake_profile_put(const char *dir, const char *name, const char *text);
void fake_config(struct config *cfg, char *dir);

/* A request's answer, as a gadget_done_fn (fake_on_done) gets it. */
struct fake_result {
	bool done;
	int r;
	char msg[4096];
};
void fake_on_done(int r, const char *msg, void *data);
/* Run the loop until res is done (at most RUN_UNTIL_MS); its result. */
int fake_wait_done(struct loop *l, struct fake_result *res);
/* r, a request's return; for -EINPROGRESS (never answered from inside
 * its call) the result given to res, once it comes. */
int fake_finish(struct loop *l, int r, struct fake_result *res);
/* What a monitor hears (event.h), subscribed with fake_hear: one
 * "kind[/function]:detail:code;" each, appended to fake_heard. */
struct event;
extern char fake_heard[4096];
void fake_hear(const struct event *ev, void *data);
struct gadget;
/* gadget_status()'s text or JSON, malloc'd. */
char *fake_status_text(struct gadget *g, bool json);
/* The set gadget_status() shows ("off" when none is up). */
void fake_status_set(struct gadget *g, char *buf, size_t size);

extern char fake_calls[8192];
extern char fake_fail_at[128];   /* e.g. "link(ecm)" */
extern char fake_not_ready[64];  /* a plugin that never becomes ready */
extern unsigned fake_not_ready_times; /* ...or only on its first N waits */
extern char fake_state_set[STATE_SET_MAX];
extern int fake_state_saves;
/* What state_load() finds (no profile: no file) and what state_save()
 * wrote last; fake_state_load_r != 0: state_load() fails with it. */
extern struct state fake_state_file;
extern int fake_state_load_r;
/* state_lock_load()'s answer and state_lock_save()'s record; a save
 * fails with fake_lock_save_r (0: succeeds). fake_sup_locked: what
 * supervisor_set_locked() last told the workers, -1 before any. */
extern bool fake_lock_marker;
extern int fake_lock_save_r;
extern int fake_sup_locked;
extern int fake_bind_busy;       /* this many binds fail with -EBUSY */
extern int fake_udc_registering; /* this many udc_registered() say false */
/* What usblink_shares() answers: fake_n_shares of fake_shares. */
extern unsigned fake_n_shares;
extern struct uplink_info fake_shares[2];
/* The console's stops are held (as systemd's take time) until
 * fake_console_release() says they are done; else done at once. */
extern bool fake_console_hold;
void fake_console_release(void);
extern const char *fake_udc_holder; /* udc_function(): ours when bound, unless set */
extern bool fake_udc_stranded;       /* bound by name, yet the UDC drives nothing */
extern const char *fake_udc_state;  /* udc_state(): "configured" */
/* What gadget.c gave udc_monitor_new(): call it for "a UDC appeared". */
extern void (*fake_udc_fn)(void *data);
extern void *fake_udc_data;
bool fake_is_bound(void);
void fake_lose_binding(void);    /* the gadget's UDC attribute empties */
/* Remote wakeup: what supervisor_bus_suspended() says, what udc_wakeup()
 * returns and how often it was called, and the bus calls gadget.c gave
 * supervisor_bus_set_ops() (call them as a worker's WORKER_BUS and
 * WORKER_WAKEUP would). */
extern bool fake_bus_suspended;
extern int fake_udc_wakeup_r;
extern unsigned fake_udc_wakeups;
extern const struct supervisor_bus_ops *fake_bus_ops;
extern void *fake_bus_data;

/* Readiness: with fake_hold_ready, a wait lasts until fake_release_ready();
 * otherwise it ends after the round, -ETIMEDOUT if fake_not_ready is live. */
extern bool fake_hold_ready;
bool fake_waiting_ready(void);
void fake_release_ready(int r, const char *err);

/* Stopped workers are reaped after the round; with fake_hold_stop only
 * once fake_release_stop() is called ("reaped()" in the calls). */
extern bool fake_hold_stop;
bool fake_waiting_stopped(void);
void fake_release_stop(void);
/* A plugin is failed (a crash loop) until a switch revives it. */
void fake_plugin_failed(const char *name);

/* Plugin commands wait until one of these answers them. */
unsigned fake_commands_pending(void);
void fake_command_reply(int rc, const char *text);   /* the oldest */
void fake_worker_dies(const char *name);             /* its commands fail */

/* What a worker sends to gadgetd: a switch request, a restart due. */
void fake_plugin_request(const char *function, const char *request);
void fake_restart_due(const char *function);
/* The bound UDC's state changes, as the kernel tells it. */
void fake_host_state(const char *state);

void fake_reset(void);
void fake_clear_calls(void);

#endif
