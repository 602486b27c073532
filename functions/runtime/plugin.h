/*
 * plugin: the contract between a FunctionFS plugin and the runtime that
 * hosts it.
 *
 * Each FunctionFS instance of a gadget runs in its own worker process
 * (gadgetd-worker). The worker mounts nothing itself: gadgetd has mounted
 * the instance and passes the directory. The worker dlopen()s the plugin's
 * shared object, which exports exactly one symbol (functions/runtime/plugin.map):
 *
 *     const struct plugin_ops gadgetd_plugin = {
 *             .abi_version = PLUGIN_ABI_VERSION, .name = "adb", ... };
 *
 * and refuses it unless abi_version is its own PLUGIN_ABI_VERSION.
 *
 * The runtime writes the descriptors built from the plugin's
 * struct plugin_desc, keeps bulk OUT reads queued with libaio, queues IN
 * writes, answers ep0 events and reports readiness to gadgetd. All calls
 * happen on the worker's single thread, from its event loop.
 *
 * Endpoints are numbered by their index in plugin_desc.eps (0-based); index
 * i is the FunctionFS file "ep<i+1>".
 */
#ifndef GADGETD_PLUGIN_H
#define GADGETD_PLUGIN_H

#include <linux/usb/ch9.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "plugin_meta.h"
#include "spawner.h"

struct loop;
struct plugin;

/*
 * The plugin ABI: what a plugin built against these headers (installed
 * under /usr/include/gadgetd, gadgetd-plugin.pc's abi_version) expects of
 * gadgetd-worker. The worker loads a plugin only when its
 * gadgetd_plugin.abi_version is this number, and otherwise refuses it
 * with "PATH: plugin ABI version N, but this gadgetd-worker loads version
 * M only; rebuild the plugin with this gadgetd" (functions/runtime/loader.c).
 *
 * It is raised by one for any change a plugin already built would
 * misread or miss:
 *   - a member of struct plugin_ops, plugin_desc, plugin_ep,
 *     plugin_ms_prop, plugin_meta, plugin_command, optdesc (or the
 *     structs they point to) added, removed, moved or retyped, or a
 *     constant of their enums renumbered;
 *   - a plugin_*, loop_* or log_* function removed, or its arguments,
 *     result or meaning changed;
 *   - a limit that sizes an array of these structs changed
 *     (PLUGIN_MAX_EPS, PLUGIN_MAX_PROPS), or another limit lowered
 *     (PLUGIN_MAX_XFER, PLUGIN_CLASS_DESC_MAX);
 *   - a call the runtime makes differently: another order, another
 *     thread, a callback called where it was not.
 * It is not raised for a new function added (an old plugin does not call
 * it), one of those other limits raised, or a fix that keeps the
 * documented behaviour.
 * abi_version comes first in struct plugin_ops so that every version can
 * read it.
 */
#define PLUGIN_ABI_VERSION 6

#define PLUGIN_MAX_EPS 4
#define PLUGIN_MAX_PROPS 4

enum plugin_ep_type {
	PLUGIN_EP_BULK_IN,
	PLUGIN_EP_BULK_OUT,
	PLUGIN_EP_INTR_IN,
};

struct plugin_ep {
	enum plugin_ep_type type;
	/* Interrupt endpoints only: wMaxPacketSize and bInterval (HS units). */
	uint16_t intr_max_packet;
	uint8_t intr_interval;
	/*
	 * Bulk OUT only: the size of each read kept queued (0: 16 KiB; at
	 * most 128 KiB, a multiple of 512). A read completes when it is full
	 * or at a short packet, so a bigger read only suits a protocol whose
	 * host ends every transfer with a short or zero-length packet (adb,
	 * MTP), not a byte stream (accessory).
	 */
	uint32_t rx_xfer;
};

/* A Windows registry property in the MS OS extended properties descriptor. */
struct plugin_ms_prop {
	const char *name;   /* e.g. "DeviceInterfaceGUID" */
	const char *value;  /* REG_SZ string */
};

struct plugin_desc {
	uint8_t cls, subcls, proto;      /* interface class triple */
	const char *interface_string;    /* iInterface, may be NULL */
	unsigned n_eps;
	struct plugin_ep eps[PLUGIN_MAX_EPS];
	const char *ms_compat_id;        /* "WINUSB", "MTP" or NULL */
	unsigned n_props;
	struct plugin_ms_prop props[PLUGIN_MAX_PROPS];
	/* Receive every control request addressed to the device (AOA). */
	bool all_ctrl_recip;
	/*
	 * A class-specific descriptor written right after the interface
	 * descriptor at every speed (HID's 0x21), or NULL. Its first byte
	 * is its length (2..PLUGIN_CLASS_DESC_MAX, equal to class_desc_len).
	 */
	const uint8_t *class_desc;
	uint8_t class_desc_len;
};

#define PLUGIN_CLASS_DESC_MAX 64

/* A command's return: the reply comes later, from plugin_command_reply(). */
#define PLUGIN_COMMAND_LATER 1

struct plugin_ops {
	/* PLUGIN_ABI_VERSION; first, so that any version can read it. */
	uint32_t abi_version;
	const char *name;

	/*
	 * The plugin's declaration (common/plugin_meta.h): its options and
	 * their defaults, its default user, its group commands and its
	 * sandbox needs. The worker starts as root, calls prepare (optional)
	 * while it still is, then takes the function's user, group and
	 * capabilities, forks the spawner if meta->spawns, calls init, writes
	 * the descriptors and only then installs its seccomp filter: the
	 * runtime's system calls (sandbox_runtime_syscalls) and
	 * meta->syscalls. NULL: no options, no extra system calls.
	 */
	const struct plugin_meta *meta;

	/*
	 * Create or adopt, as root, what the plugin will need as uid:gid
	 * (e.g. its storage folders). Options are readable; nothing else of
	 * the runtime is set up yet. 0 or -errno (the worker exits).
	 */
	int (*prepare)(struct plugin *p, uid_t uid, gid_t gid);

	/*
	 * Create the plugin's state. Options come from the profile through
	 * plugin_option(). Fill *desc; it is written to ep0 right after.
	 * Returns 0 or -errno; on error the worker exits and gadgetd reports
	 * it with the function's name.
	 */
	int (*init)(struct plugin *p, struct plugin_desc *desc, void **priv);
	void (*finish)(void *priv);

	/* The host configured the function (FunctionFS ENABLE): endpoints
	 * are usable; OUT reads are queued. */
	void (*enable)(void *priv);
	/* DISABLE, UNBIND, or a USB reset: queued IN data was dropped. */
	void (*disable)(void *priv);

	/*
	 * A control request. For an IN request (bRequestType & USB_DIR_IN)
	 * fill in[0 .. wLength) and return the length to send. For an OUT
	 * request return 0 to accept it; its data stage (wLength bytes) then
	 * arrives through setup_data. A negative return stalls. NULL: every
	 * request is stalled.
	 */
	int (*setup)(void *priv, const struct usb_ctrlrequest *req, uint8_t *in);
	void (*setup_data)(void *priv, const struct usb_ctrlrequest *req,
			   const uint8_t *data, size_t len);

	/* Data from an OUT endpoint, in order. len is 0 for a zero-length
	 * packet. data is the plugin's only until rx returns. */
	void (*rx)(void *priv, unsigned ep, const uint8_t *data, size_t len);
	/* Queued IN data on ep fell below PLUGIN_TX_LOW bytes. The runtime
	 * calls it when the queue crosses from >= PLUGIN_TX_LOW to below,
	 * and also whenever it runs empty. */
	void (*tx_drained)(void *priv, unsigned ep);

	/*
	 * A command from `gadgetctl <function> ARGS...` relayed by gadgetd.
	 * Write a human-readable reply (NUL-terminated) into reply; return 0
	 * or -errno (the reply then says what was wrong). NULL: unsupported.
	 * Or return PLUGIN_COMMAND_LATER to answer later, once, with
	 * plugin_command_reply() (before gadgetd's 5 s command timeout): one
	 * such command at a time; while one waits, the runtime answers
	 * another that returns PLUGIN_COMMAND_LATER with -EBUSY.
	 */
	int (*command)(void *priv, int argc, char **argv, char *reply,
		       size_t reply_size);

	/*
	 * gadgetd hands over n (at most WMSG_MAX_FDS) listening TCP sockets
	 * for port, bound where the profile says (plugin_request_tcp()).
	 * The plugin takes the fds (non-blocking, close-on-exec) and drops
	 * those of an earlier call; n == 0: stop listening. NULL: the
	 * runtime closes them.
	 */
	void (*listen)(void *priv, const int *fds, unsigned n, unsigned port);

	/*
	 * An IN transfer piece on ep ended (optional): res is the bytes the
	 * host took, or -errno (-ESHUTDOWN and the like: the host went away
	 * and the piece was not sent). Called before tx_drained. A plugin
	 * that writes small transfers (at most EPIO_TX_PIECE, 256 KiB) gets
	 * one call per plugin_write(), in order, so it knows what arrived.
	 * Pieces cut short by a disable are not reported: disable says so.
	 */
	void (*tx_result)(void *priv, unsigned ep, long res);

	/* The bus was suspended (true) or resumed (false) (optional). */
	void (*suspend)(void *priv, bool suspended);

	/*
	 * The device was locked (true) or unlocked (false) by `gadgetctl
	 * lock` or D-Bus (optional; ABI 5). Called only for a function that
	 * is gated (plugin_locked()) and only on a change after init: init
	 * reads plugin_locked() for the state it starts in.
	 */
	void (*lock)(void *priv, bool locked);

	/*
	 * Local input forwarded to the host (ABI 6; a plugin whose
	 * declaration has .input, and a profile that turns it on): gadgetd
	 * found an evdev device on the board for this function, opened it
	 * and, when grabbed, grabbed it (EVIOCGRAB) so that the board does
	 * not act on it too. The plugin takes fd (non-blocking,
	 * close-on-exec), reads its events as hostile input, and closes it at
	 * input_gone(id) or when a read fails (the device went). label
	 * ("event5 Logitech K120") is for status. NULL: the runtime closes
	 * the fd.
	 */
	void (*input)(void *priv, uint32_t id, int fd, bool grabbed,
		      const char *label);
	void (*input_gone)(void *priv, uint32_t id);
	/* Every forwarded device is now grabbed (true) or released to the
	 * board (false): forward only while grabbed. */
	void (*input_state)(void *priv, bool grabbed);
};

/*
 * Threshold under which tx_drained fires, and a sensible cap for queueing.
 * The low mark is three quarters of the cap, so a streaming plugin tops
 * the queue up a piece at a time and the host always finds 768 KiB or more
 * waiting, even when the worker's CPU is taken for a while: with 256 KiB,
 * MTP's GetObject refilled only once the last piece was in flight, and got
 * 13 MB/s where 768 KiB got 24.5 (50 MB, a loaded bed, 2026-12-05,
 * docs/benchmarks.md).
 */
#define PLUGIN_TX_LOW (768 * 1024)
#define PLUGIN_TX_HIGH (1024 * 1024)
/* Largest single transfer plugin_write() accepts. */
#define PLUGIN_MAX_XFER (1024 * 1024)

/* The worker's event loop: plugins add their own fds (ptys, sockets). */
struct loop *plugin_loop(struct plugin *p);

/* The function's instance name in the profile (e.g. "adb"). */
const char *plugin_instance(struct plugin *p);

/* An option from the profile's function block, or NULL. */
const char *plugin_option(struct plugin *p, const char *key);

/* The plugin's own ops table (each plugin defines it). */
extern const struct plugin_ops gadgetd_plugin;

/*
 * An option from the profile, else the default its
 * declaration gives (gadgetd_plugin.meta), else NULL: the one lookup
 * every plugin uses for an option that has a default.
 */
static inline const char *plugin_option_or_default(struct plugin *p,
						   const char *key)
{
	return plugin_meta_option(gadgetd_plugin.meta, plugin_option(p, key), key);
}

/*
 * A boolean option (true/false, yes/no, on/off, 1/0), or an integer in
 * the range its declaration gives, from the profile, else the declared
 * default: 0 with *out set. gadgetd hands a worker checked values, but
 * one started by hand gets whatever it is given, so these parse again:
 * -EINVAL, logged with the option and the value, for a value that is
 * none (or an integer option its declaration does not have). -ENOENT,
 * not logged, when the option is absent and has no default.
 */
int plugin_option_bool(struct plugin *p, const char *key, bool *out);
int plugin_option_int(struct plugin *p, const char *key, long long *out);

/*
 * Queue one IN transfer of len bytes (copied). Each call is one USB
 * transfer: it ends with a short packet unless len is a multiple of
 * wMaxPacketSize. len == 0 queues a zero-length packet, which the runtime
 * holds back until every earlier transfer on ep has completed.
 * Returns 0, -EINVAL (bad ep or len > PLUGIN_MAX_XFER), -ESHUTDOWN when the
 * function is not enabled, or -ENOMEM.
 */
int plugin_write(struct plugin *p, unsigned ep, const void *buf, size_t len);

/*
 * Zero-copy IN transfers for bulk senders: take a buffer of len bytes
 * (len <= PLUGIN_MAX_XFER), fill it, and queue it with plugin_write_buf(),
 * which takes the buffer whatever it returns (same results as
 * plugin_write()). A buffer not sent goes back with plugin_buf_free().
 * plugin_buf_alloc() returns NULL when out of memory.
 */
void *plugin_buf_alloc(struct plugin *p, size_t len);
int plugin_write_buf(struct plugin *p, unsigned ep, void *buf, size_t len);
void plugin_buf_free(struct plugin *p, void *buf);

/* Bytes queued or in flight on IN endpoint ep. */
size_t plugin_tx_queued(struct plugin *p, unsigned ep);

/* wMaxPacketSize of ep at the current speed (0 when not enabled). */
unsigned plugin_max_packet(struct plugin *p, unsigned ep);

/* Stop (false) or restart (true) the queued reads on OUT endpoint ep.
 * Reads already queued still complete; their data is held and handed to
 * rx after the restart. Every enable starts with reception on. */
void plugin_rx_enable(struct plugin *p, unsigned ep, bool on);

/*
 * Ask gadgetd to switch the gadget. request is a set ("accessory,adb") or
 * "revert" (back to the set before the last plugin-requested switch).
 * Asynchronous; the result is logged by gadgetd. gadgetd obeys only the
 * accessory plugin, for its accessory_set option or "revert", while its
 * function is in the active set (gadget.c); any other is logged and ignored.
 */
int plugin_request_switch(struct plugin *p, const char *request);

/*
 * Ask gadgetd to listen on TCP port for this function (0: stop), as
 * `adb tcpip PORT` and `adb usb` do. gadgetd obeys only a function whose
 * profile allows it (tcpip = true) and answers through ops->listen.
 * Asynchronous; 0 or -errno if not sent.
 */
int plugin_request_tcp(struct plugin *p, unsigned port);

/*
 * Answer the command whose ops->command returned PLUGIN_COMMAND_LATER:
 * rc 0 or -errno, and the reply text. -EALREADY if none is waiting.
 */
int plugin_command_reply(struct plugin *p, int rc, const char *reply);

/*
 * Have gadgetd append line (one line, without its newline) to the
 * function's keys file, the profile's `keys` (adb's adb_keys). The file is
 * root's: neither the worker's user nor the programs it starts as that
 * user (adb's shells) can write it. Only from ops->command, for the
 * command `allow` (gadgetd refuses any other, and any line with a control
 * character), which then returns PLUGIN_COMMAND_LATER and answers from
 * done: done(data, rc) runs later from the loop, with 0 once the line is
 * on disk or -errno. Returns 0; -EALREADY outside ops->command; -EBUSY
 * while another command waits for its answer; or -errno of the send (done
 * never runs then).
 */
typedef void (*plugin_keys_fn)(void *data, int rc);
int plugin_keys_append(struct plugin *p, const char *line, plugin_keys_fn done,
		       void *data);

/*
 * Wake the host that suspended the bus (USB remote wakeup), for a report
 * that waits. The worker's sandbox cannot, so gadgetd does it (the UDC's
 * srp file), if the set's configuration has remote_wakeup = true and the
 * bus is suspended. done gets 0 once the UDC was told to: the bus
 * resumes (ops->suspend(false)) if the host enabled remote wakeup, and
 * nothing happens otherwise; or -EOPNOTSUPP: the configuration does not
 * offer it, -EAGAIN: the bus is not suspended, another -errno: the UDC
 * refused. Returns 0, -EBUSY while one waits, or -errno.
 */
typedef void (*plugin_wakeup_fn)(void *data, int rc);
int plugin_wakeup(struct plugin *p, plugin_wakeup_fn done, void *data);

/*
 * Ask gadgetd to release the forwarded input devices to the board
 * (PLUGIN_INPUT_RELEASE), take them again (PLUGIN_INPUT_TAKE) or toggle
 * (PLUGIN_INPUT_TOGGLE): a hotkey, a command. The answer is
 * ops->input_state, to every forwarding function. 0 or -errno if not
 * sent.
 */
#define PLUGIN_INPUT_RELEASE 0
#define PLUGIN_INPUT_TAKE 1
#define PLUGIN_INPUT_TOGGLE 2
int plugin_input_grab(struct plugin *p, unsigned how);

/*
 * Whether the device is locked for this function: gadgetd is locked
 * (`gadgetctl lock`, D-Bus Lock) and the plugin declares a boolean option
 * "lock_gated" that the profile leaves true (or sets so). A plugin that
 * declares no such option is never told it is locked. A locked plugin
 * serves no data: adb keeps new hosts unauthorized.
 */
bool plugin_locked(struct plugin *p);

/* Publish a key/value shown by `gadgetctl status` under this function. */
void plugin_set_status(struct plugin *p, const char *key, const char *value);

/*
 * Whether this worker runs as root and why, and whether the profile lets
 * it ask for root (its `root = "allowed"`).
 */
enum plugin_root {
	PLUGIN_ROOT_REFUSED, /* not root, and may not ask (the default) */
	PLUGIN_ROOT_ALLOWED, /* not root; plugin_request_root(p, true) may */
	PLUGIN_ROOT_ACTIVE,  /* restarted as root; plugin_request_root(p, false) ends it */
	PLUGIN_ROOT_PROFILE, /* root as the profile's user = "root" */
};
enum plugin_root plugin_root(struct plugin *p);

/*
 * Ask gadgetd to restart this function's worker as root (on) or as its
 * profile's user again (off). gadgetd checks the profile itself and
 * ignores a request it does not allow; when it does, it stops this
 * worker (SIGTERM) and starts the other one, and the host sees the
 * gadget go and come back. Asynchronous; 0 or -errno if not sent.
 */
int plugin_request_root(struct plugin *p, bool on);

/*
 * Start a program through the spawner (plugins whose meta has spawns; see
 * spawner.h): the profile's shell running the command text c->cmd (or
 * with c->reboot, the profile's reboot command) as the worker's user, in
 * its own session, outside the worker's seccomp filter. Asynchronous:
 * done(data, 0, child) runs later from the loop with its pid and fds
 * (close-on-exec, blocking; done takes them); the status fd becomes
 * readable when it exits and yields its wait status as an int. Or
 * done(data, -errno, NULL): -ETIMEDOUT, -EPIPE, the spawner's refusal.
 * Returns 0 with *call set, -ENOSYS without a spawner, or -errno (then
 * done never runs).
 */
int plugin_spawn(struct plugin *p, const struct spawner_cmd *c,
		 spawner_done_fn done, void *data, struct spawner_call **call);
/* Stop waiting for call (before its done ran): done never runs, and a
 * program started anyway is killed. */
void plugin_spawn_cancel(struct spawner_call *call);

#endif
