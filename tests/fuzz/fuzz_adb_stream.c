/*
 * libFuzzer target: what an authorized host can do with streams. The
 * stream table (adb_stream.c) gets OPEN, OKAY, WRTE and CLSE as the host
 * sends them; service names go through the shell parser (adb_shell.c) and
 * the forward spec parser (adb_forward.c); reverse: commands reach
 * adb_forward_reverse() in a network namespace of the fuzzer's own.
 *
 * Built with -DFUZZ_ADB_SHELL it is fuzz_adb_shell: one real shell
 * stream per input (adb_shell_open() of /bin/true), whose v2 framing
 * parser gets the host's bytes. A fork of this process takes milliseconds,
 * so that target is slow and the stream target uses echo services instead.
 *
 * Nothing here touches the machine: sync: is not opened (fuzz_adb_sync
 * covers its parser), forward specs are parsed but never connected, and
 * reverse specs that would bind a path in the file system are skipped.
 *
 * Input: a list of operations, byte 0 of each picking one:
 *   0  OPEN: u8 remote id, u8 name length, name (a NUL is appended when
 *      the length byte is even)
 *   1  OKAY: u8 stream index, u8 remote id
 *   2  WRTE: u8 stream index, u8 remote id, u16 length, data
 *   3  CLSE: u8 stream index, u8 remote id
 *   4  the transport has room (u8 odd) or not; then pump
 *   5  the echo services acknowledge what they held back
 *   6  run the event loop once (shell output, exits)
 *   7  new max payload: u16 (x 16), then u8: delayed_ack on when odd
 * Under delayed_ack, OPEN ends with a u16 window (x 256; 0 is refused) and
 * OKAY with an i16 delta (x 64) sent as the 4-byte payload, or, when the
 * delta's low byte is 0x7f, a payload of the wrong size.
 * A stream index picks one of the ids the device answered OPENs with; the
 * remote id is the host's. Checks: a WRTE never exceeds the max payload,
 * never goes out while the stream's previous one awaits its OKAY (under
 * delayed_ack: while the host's window is spent), every OKAY has the
 * payload of the mode, and only streams the device opened are written to.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "adb/adb_forward.h"
#include "adb/adb_packet.h"
#include "adb/adb_shell.h"
#include "fake_spawn.h"
#include "adb/adb_stream.h"
#include "fuzz_rd.h"
#include "log.h"
#include "loop.h"
#include "plugin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_IDS 32

static struct {
	struct loop *loop;
	struct adb_stream_mux *t;
	struct adb_forward *fwd;
	bool netns; /* reverse: may bind (in our own network namespace) */
	bool room;
	size_t max_payload;
	/* Device-side ids the device gave out, the host's id each was
	 * opened with, and their WRTE in flight. */
	uint32_t ids[MAX_IDS];
	uint32_t remotes[MAX_IDS];
	bool in_flight[MAX_IDS];
	int64_t avail[MAX_IDS]; /* the host's window, under delayed_ack */
	unsigned n_ids;
	bool delayed;
	uint32_t open_window; /* of the OPEN being handled */
} fz;

static int id_index(uint32_t local)
{
	for (unsigned i = 0; i < fz.n_ids; i++)
		if (fz.ids[i] == local)
			return i;
	return -1;
}

static int dev_send(void *data, uint32_t cmd, uint32_t arg0, uint32_t arg1,
		    const void *payload, size_t len)
{
	int i;

	if (len && !payload)
		abort();
	switch (cmd) {
	case ADB_OKAY:
		if (len != (fz.delayed ? 4u : 0u))
			abort();
		/* The answer to an OPEN carries a new id of ours. */
		if (id_index(arg0) < 0 && fz.n_ids < MAX_IDS) {
			fz.avail[fz.n_ids] = fz.open_window;
			fz.in_flight[fz.n_ids] = false;
			fz.remotes[fz.n_ids] = arg1;
			fz.ids[fz.n_ids++] = arg0;
		}
		break;
	case ADB_WRTE:
		i = id_index(arg0);
		if (i < 0 || len == 0 || len > fz.max_payload)
			abort();
		if (fz.delayed) {
			if (fz.avail[i] <= 0)
				abort(); /* past the host's window */
			fz.avail[i] -= len;
			break;
		}
		if (fz.in_flight[i])
			abort(); /* a second WRTE before the host's OKAY */
		fz.in_flight[i] = true;
		break;
	case ADB_CLSE:
	case ADB_OPEN:
		break;
	default:
		abort();
	}
	return 0;
}

static uint8_t *buf_get(void *data, size_t size)
{
	return malloc(size);
}

static int buf_send(void *data, uint32_t cmd, uint32_t arg0, uint32_t arg1,
		    uint8_t *buf, size_t len)
{
	int rc = dev_send(data, cmd, arg0, arg1, buf, len);

	free(buf);
	return rc;
}

static void buf_put(void *data, uint8_t *buf)
{
	free(buf);
}

static const struct adb_stream_mux_bufs bufs = {
	.get = buf_get,
	.send = buf_send,
	.put = buf_put,
};

static int room(void *data)
{
	return fz.room;
}

/* An echo service: holds back what the host writes (write() returns 1)
 * until op 5, and sends it back. */
struct echo {
	struct adb_stream *s;
	struct echo *next;
	uint8_t data[4096];
	size_t len;
	bool held;
};

static struct echo *echoes;

static int echo_write(void *svc, const uint8_t *d, size_t len)
{
	struct echo *e = svc;
	size_t n = len < sizeof(e->data) - e->len ? len
						   : sizeof(e->data) - e->len;

	if (n)
		memcpy(e->data + e->len, d, n);
	e->len += n;
	if (e->len)
		adb_stream_ready(e->s);
	if (len && d[0] == 'c')
		return -EPIPE; /* the service gives up: the stream closes */
	e->held = len && d[0] == 'h';
	return e->held;
}

static ssize_t echo_produce(void *svc, uint8_t *buf, size_t max)
{
	struct echo *e = svc;
	size_t n = e->len < max ? e->len : max;

	memcpy(buf, e->data, n);
	memmove(e->data, e->data + n, e->len - n);
	e->len -= n;
	return n;
}

static void echo_free(void *svc)
{
	for (struct echo **pp = &echoes; *pp; pp = &(*pp)->next) {
		if (*pp == svc) {
			*pp = (*pp)->next;
			break;
		}
	}
	free(svc);
}

static const struct adb_service_ops echo_ops = {
	.write = echo_write,
	.produce = echo_produce,
	.free = echo_free,
};

static int open_echo(struct adb_stream *s, const struct adb_service_ops **ops,
		     void **svc)
{
	struct echo *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->s = s;
	e->next = echoes;
	echoes = e;
	*ops = &echo_ops;
	*svc = e;
	return 0;
}

/* A reverse: spec that would create a socket file somewhere. */
static bool binds_a_path(const char *cmd)
{
	return strstr(cmd, "localfilesystem:") || strstr(cmd, "localreserved:");
}

/* fake_spawn.c's spawner answers on the loop of the plugin that asks:
 * here there is one loop and no plugin. */
struct loop *plugin_loop(struct plugin *p)
{
	return fz.loop;
}

static int open_shell(struct adb_stream *s, const char *name,
		      const struct adb_service_ops **ops, void **svc)
{
	struct adb_shell_cfg cfg = { .shell = "/bin/true" };
	struct adb_shell_args a;
	int rc = adb_shell_parse(name, &a);

	if (rc < 0)
		return rc;
	if (a.cmd < name || a.cmd > name + strlen(name) ||
	    strlen(a.term) >= sizeof(a.term))
		abort();
#ifdef FUZZ_ADB_SHELL
	/* The spawner's shell is fixed as the worker fixes it: never a
	 * real shell for fuzzed command lines. */
	fake_spawn_config("/bin/true", NULL);
	return adb_shell_open(s, name, &cfg, ops, svc);
#else
	(void)cfg;
	return open_echo(s, ops, svc);
#endif
}

static int open_service(void *data, struct adb_stream *s, const char *name,
			const struct adb_service_ops **ops, void **svc)
{
	struct sockaddr_storage ss;
	char reply[4200];
	int rc;

	if (!strcmp(name, "sync:"))
		return open_echo(s, ops, svc);
	if (!strncmp(name, "reverse:", 8)) {
		if (!fz.netns || binds_a_path(name))
			return -EPERM;
		rc = adb_forward_reverse(fz.fwd, name + 8, reply, sizeof(reply));
		if (rc < 0 || (size_t)rc >= sizeof(reply))
			abort();
		return adb_stream_oneshot(reply, rc, ops, svc);
	}
	rc = open_shell(s, name, ops, svc);
	if (rc != -ENOENT)
		return rc;
	rc = adb_forward_addr(name, &ss);
	if (rc > (int)sizeof(ss))
		abort();
	return rc < 0 ? rc : open_echo(s, ops, svc);
}

static void setup_once(void)
{
	if (fz.loop)
		return;
	log_init("fuzz_adb_stream", true, LOG_LEVEL_ERROR);
	/* As the adb plugin does: a child that stopped reading is an
	 * error on write, not a death. */
	signal(SIGPIPE, SIG_IGN);
	/* Listeners of reverse: then bind in a namespace nobody else sees. */
	fz.netns = unshare(CLONE_NEWNET) == 0;
	if (!fz.netns)
		fprintf(stderr, "fuzz_adb_stream: no network namespace (%s): "
			"reverse: is not fuzzed\n", strerror(errno));
	fz.loop = loop_new();
	fz.t = adb_stream_mux_new(fz.loop, dev_send, &bufs, room, open_service,
				  NULL);
	fz.fwd = fz.t ? adb_forward_new(fz.t, fz.loop) : NULL;
	if (!fz.loop || !fz.t || !fz.fwd)
		abort();
}

#ifndef FUZZ_ADB_SHELL
static uint32_t pick_local(struct rd *r)
{
	uint8_t i = rd_n(r, 1);

	/* Beyond the known ids: an id the device never gave out. */
	return i < fz.n_ids ? fz.ids[i] : i;
}

static void op_open(struct rd *r)
{
	uint32_t remote = rd_n(r, 1);
	size_t len = rd_n(r, 1), want = len;
	const uint8_t *p = rd_take(r, &len);
	uint8_t name[257];

	memcpy(name, p, len);
	if (!(want & 1))
		name[len++] = '\0';
	fz.open_window = fz.delayed ? 256 * rd_n(r, 2) : 0;
	/* Streams beyond the table could not be checked: open no more. */
	if (fz.n_ids == MAX_IDS)
		return;
	adb_stream_mux_on_open(fz.t, remote, fz.open_window, name, len);
}

static void op_write(struct rd *r)
{
	uint32_t local = pick_local(r), remote = rd_n(r, 1);
	size_t len = rd_n(r, 2);
	const uint8_t *p = rd_take(r, &len);
	/* A copy of the exact size, so ASan sees any read past the end. */
	uint8_t *d = malloc(len ? len : 1);

	memcpy(d, p, len);
	adb_stream_mux_on_write(fz.t, remote, local, len ? d : NULL, len);
	free(d);
}

static void op_okay(struct rd *r, uint32_t local, uint32_t remote)
{
	int i = id_index(local);
	uint16_t raw;
	int32_t delta;
	uint8_t p[5];

	/* An OKAY reaches the stream only from the host's end of it: one
	 * that names another remote id is ignored (adb_stream.c), and moves
	 * neither the window nor what is in flight. (A WRTE "past the
	 * window" in a 120 s run, 2026-12-06, was this harness moving the
	 * window on such an OKAY; corpus_adb_stream/okay_other_remote.) */
	if (i >= 0 && (remote == 0 || (fz.remotes[i] && fz.remotes[i] != remote)))
		i = -1;
	if (!fz.delayed) {
		if (i >= 0)
			fz.in_flight[i] = false;
		adb_stream_mux_on_okay(fz.t, remote, local, NULL, 0);
		return;
	}
	raw = rd_n(r, 2);
	delta = (int16_t)raw * 64;
	memcpy(p, &delta, 4); /* little-endian, as on the wire here */
	if ((raw & 0xff) == 0x7f) {
		adb_stream_mux_on_okay(fz.t, remote, local, p, 5);
		return; /* ignored: the window stays */
	}
	/* Only an OKAY that reaches the stream moves its window. */
	if (i >= 0) {
		/* Clamped as adb_stream.c does. */
		fz.avail[i] += delta;
		if (fz.avail[i] > INT32_MAX)
			fz.avail[i] = INT32_MAX;
		if (fz.avail[i] < INT32_MIN)
			fz.avail[i] = INT32_MIN;
	}
	adb_stream_mux_on_okay(fz.t, remote, local, p, 4);
}

static void run_op(struct rd *r)
{
	uint32_t local, remote;

	switch (rd_n(r, 1) % 8) {
	case 0:
		op_open(r);
		break;
	case 1:
		local = pick_local(r);
		remote = rd_n(r, 1);
		op_okay(r, local, remote);
		break;
	case 2:
		op_write(r);
		break;
	case 3:
		local = pick_local(r);
		remote = rd_n(r, 1);
		adb_stream_mux_on_close(fz.t, remote, local);
		break;
	case 4:
		fz.room = rd_n(r, 1) & 1;
		adb_stream_mux_pump(fz.t);
		break;
	case 5:
		for (struct echo *e = echoes; e; e = e->next) {
			if (e->held) {
				e->held = false;
				adb_stream_ack(e->s);
			}
		}
		break;
	case 6:
		loop_dispatch(fz.loop, 0);
		break;
	case 7:
		/* The max payload changes only with a new CNXN, which ends
		 * every stream first (adb.c on_cnxn). */
		adb_stream_mux_reset(fz.t);
		fz.n_ids = 0;
		memset(fz.in_flight, 0, sizeof(fz.in_flight));
		fz.max_payload = 16 * (size_t)rd_n(r, 2);
		if (fz.max_payload == 0)
			fz.max_payload = ADB_MAX_PAYLOAD_V1;
		if (fz.max_payload > ADB_MAX_PAYLOAD)
			fz.max_payload = ADB_MAX_PAYLOAD;
		adb_stream_mux_set_max_payload(fz.t, fz.max_payload);
		fz.delayed = rd_n(r, 1) & 1;
		adb_stream_mux_set_delayed_ack(fz.t, fz.delayed);
		break;
	}
}
#endif

static void start_input(void)
{
	setup_once();
	fz.room = true;
	fz.n_ids = 0;
	memset(fz.in_flight, 0, sizeof(fz.in_flight));
	fz.max_payload = ADB_MAX_PAYLOAD_V1;
	adb_stream_mux_set_max_payload(fz.t, fz.max_payload);
	fz.delayed = false;
	adb_stream_mux_set_delayed_ack(fz.t, false);
}

static void end_input(void)
{
	/* A new connection: every stream and listener goes. */
	adb_stream_mux_reset(fz.t);
	adb_forward_reset(fz.fwd);
	if (echoes || adb_stream_mux_count(fz.t))
		abort();
	/* The loop frees removed watches on its next turn: let it, or every
	 * run looks like a leak to libFuzzer, which then scans the heap. */
	loop_dispatch(fz.loop, 0);
}

#ifndef FUZZ_ADB_SHELL
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r = { data, size };

	start_input();
	while (r.n)
		run_op(&r);
	end_input();
	return 0;
}
#else
/*
 * fuzz_adb_shell input: byte 0 picks the service; the rest is a list of
 * WRTEs, each a u8 length then its bytes, every one acknowledged by the
 * host and followed by a turn of the loop (so output and exits come in).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *names[] = {
		"shell,v2,raw:", "shell,v2,pty:", "shell,v2,TERM=xterm:",
		"shell,v2:x", "shell:", "shell,raw:x", "exec:x", "shell,pty:",
	};
	struct rd r = { data, size };
	const char *name;

	if (size == 0)
		return 0;
	start_input();
	name = names[rd_n(&r, 1) % 8];
	adb_stream_mux_on_open(fz.t, 1, 0, (const uint8_t *)name,
			       strlen(name) + 1);
	while (r.n) {
		size_t len = rd_n(&r, 1);
		const uint8_t *p = rd_take(&r, &len);
		uint8_t *d = malloc(len ? len : 1);

		memcpy(d, p, len);
		adb_stream_mux_on_write(fz.t, 1, fz.n_ids ? fz.ids[0] : 0,
					len ? d : NULL, len);
		free(d);
		loop_dispatch(fz.loop, 0);
		if (fz.n_ids) {
			fz.in_flight[0] = false;
			adb_stream_mux_on_okay(fz.t, 1, fz.ids[0], NULL, 0);
		}
	}
	end_input();
	return 0;
}
#endif
